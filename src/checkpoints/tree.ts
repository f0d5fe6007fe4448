// A recorded workspace state as objects, one per directory (as git stores trees): a directory whose files did
// not change keeps its object, so a turn that changes 3 files adds 3 file objects and the listings on their
// paths, not a new list of every file. A checkpoint is named by its root listing's hash.
import { existsSync } from "node:fs";
import { DamagedObjectError, type ObjectStore } from "./objects";

/** One recorded file. */
export interface FileState {
  hash: string;
  size: number;
  mode: number;
}

/** Workspace-relative path (`/`-separated) to its recorded content. */
export type WorkspaceState = Map<string, FileState>;

interface Listing {
  /** name -> [hash, size, mode] */
  f: Record<string, [string, number, number]>;
  /** name -> listing hash */
  d: Record<string, string>;
}

/**
 * Writes a state's listings and returns the root's hash. It keeps each folder's hash from its last write, so
 * with `changed` (the paths that differ from that write) only the folders on those paths are serialised and
 * hashed again: a turn that changes 3 files in a 10,000-file workspace rewrites a handful of listings.
 */
export class TreeWriter {
  private hashes = new Map<string, string>();

  /** The next write serialises every folder again. */
  forget(): void {
    this.hashes = new Map();
  }

  write(objects: ObjectStore, state: WorkspaceState, changed?: ReadonlySet<string>): string {
    const dirs = new Map<string, Listing>([["", { f: {}, d: {} }]]);
    const listing = (dir: string): Listing => {
      let l = dirs.get(dir);
      if (!l) {
        l = { f: {}, d: {} };
        dirs.set(dir, l);
        listing(parentOf(dir)); // every parent exists, so every listing is reached from the root
      }
      return l;
    };
    for (const [rel, f] of state) {
      const cut = rel.lastIndexOf("/");
      listing(cut < 0 ? "" : rel.slice(0, cut)).f[rel.slice(cut + 1)] = [f.hash, f.size, f.mode];
    }
    let dirty: Set<string> | undefined;
    if (changed && this.hashes.size) {
      dirty = new Set();
      for (const rel of changed) for (let d = parentOf(rel); ; d = parentOf(d)) {
        if (dirty.has(d)) break;
        dirty.add(d);
        if (d === "") break;
      }
    }
    // Deepest first, so each listing's subfolder hashes are known when it is written.
    const order = [...dirs.keys()].sort((a, b) => depth(b) - depth(a));
    const hashes = new Map<string, string>();
    for (const dir of order) {
      const kept = dirty && !dirty.has(dir) ? this.hashes.get(dir) : undefined;
      const h = kept ?? objects.put(Bun.deflateSync(canonical(dirs.get(dir)!)));
      hashes.set(dir, h);
      if (dir !== "") {
        const cut = dir.lastIndexOf("/");
        dirs.get(parentOf(dir))!.d[dir.slice(cut + 1)] = h;
      }
    }
    this.hashes = hashes;
    return hashes.get("")!;
  }
}

/** Writes a state's listings (every one; the store keeps those already there) and returns the root's hash. */
export function writeTree(objects: ObjectStore, state: WorkspaceState): string {
  return new TreeWriter().write(objects, state);
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut < 0 ? "" : path.slice(0, cut);
}

function depth(dir: string): number {
  if (dir === "") return 0;
  let n = 1;
  for (let i = 0; i < dir.length; i++) if (dir.charCodeAt(i) === 47) n++;
  return n;
}

/** The same listing always serialises the same way (sorted names), so equal directories share one object. */
function canonical(l: Listing): string {
  const f: Listing["f"] = {};
  for (const k of Object.keys(l.f).sort()) f[k] = l.f[k]!;
  const d: Listing["d"] = {};
  for (const k of Object.keys(l.d).sort()) d[k] = l.d[k]!;
  return JSON.stringify({ f, d });
}

/** Reads a recorded state back; throws DamagedObjectError when a listing is missing or damaged. */
export function readTree(objects: ObjectStore, root: string): WorkspaceState {
  const state: WorkspaceState = new Map();
  const visit = (hash: string, prefix: string) => {
    let l: Listing;
    try {
      l = parseListing(objects.get(hash));
    } catch (e) {
      if (e instanceof DamagedObjectError) throw e;
      throw new DamagedObjectError(hash, "not a listing");
    }
    for (const [name, [h, size, mode]] of Object.entries(l.f ?? {})) state.set(prefix + name, { hash: h, size, mode });
    for (const [name, h] of Object.entries(l.d ?? {})) visit(h, `${prefix}${name}/`);
  };
  visit(root, "");
  return state;
}

/** Every object a recorded state refers to (listings and file contents), added to `into`; damaged listings are skipped. */
export function collectObjects(objects: ObjectStore, root: string, into: Set<string>): void {
  if (into.has(root)) return;
  into.add(root);
  let l: Listing;
  try {
    l = parseListing(objects.get(root));
  } catch {
    return;
  }
  for (const [h] of Object.values(l.f ?? {})) into.add(h);
  for (const h of Object.values(l.d ?? {})) collectObjects(objects, h, into);
}

/** Listings are stored deflated (their hashes compress; a file's bytes are stored as they are). */
function parseListing(data: Buffer): Listing {
  return JSON.parse(Buffer.from(Bun.inflateSync(new Uint8Array(data))).toString("utf8")) as Listing;
}

/**
 * Whether every object a recorded state needs is there (listings read and checked, file contents present);
 * throws DamagedObjectError naming the first that is not. `seen` carries what earlier checks found whole, so
 * checking many points of one session reads each shared listing once.
 */
export function checkTree(objects: ObjectStore, root: string, seen: Set<string>): void {
  if (seen.has(root)) return;
  let l: Listing;
  try {
    l = parseListing(objects.get(root));
  } catch (e) {
    if (e instanceof DamagedObjectError) throw e;
    throw new DamagedObjectError(root, "not a listing");
  }
  for (const [h] of Object.values(l.f ?? {})) {
    if (seen.has(h)) continue;
    if (!existsSync(objects.pathOf(h))) throw new DamagedObjectError(h, `missing from ${objects.dir}`);
    seen.add(h);
  }
  for (const h of Object.values(l.d ?? {})) checkTree(objects, h, seen);
  seen.add(root);
}
