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
      const h = kept ?? storeListing(objects, dirs.get(dir)!);
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
    const { listing: l } = loadListing(objects, hash);
    for (const [name, [h, size, mode]] of Object.entries(l.f)) state.set(prefix + name, { hash: h, size, mode });
    for (const [name, h] of Object.entries(l.d)) visit(h, `${prefix}${name}/`);
  };
  visit(root, "");
  return state;
}

/** Every object a recorded state refers to (listings and file contents), added to `into`; damaged listings are skipped. */
export function collectObjects(objects: ObjectStore, root: string, into: Set<string>): void {
  if (into.has(root)) return;
  into.add(root);
  let loaded: ReturnType<typeof loadListing>;
  try {
    loaded = loadListing(objects, root);
  } catch {
    return;
  }
  for (const part of loaded.parts) into.add(part);
  for (const [h] of Object.values(loaded.listing.f)) into.add(h);
  for (const h of Object.values(loaded.listing.d)) collectObjects(objects, h, into);
}

/** Above this many entries a folder's listing is split into BUCKETS parts by name, so one change rewrites one part. */
const SPLIT_ABOVE = 64;
const BUCKETS = 16;

function bucketOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return (h >>> 0) % BUCKETS;
}

/**
 * Stores a folder's listing (deflated JSON; hashes compress, file bytes are stored as they are). A large folder
 * is stored as BUCKETS parts and an index of them: a turn that changes one file there adds one small part.
 */
function storeListing(objects: ObjectStore, l: Listing): string {
  const names = Object.keys(l.f).length + Object.keys(l.d).length;
  if (names <= SPLIT_ABOVE) return objects.put(Bun.deflateSync(canonical(l)));
  const parts: Listing[] = Array.from({ length: BUCKETS }, () => ({ f: {}, d: {} }));
  for (const [name, e] of Object.entries(l.f)) parts[bucketOf(name)]!.f[name] = e;
  for (const [name, h] of Object.entries(l.d)) parts[bucketOf(name)]!.d[name] = h;
  const b = parts.map((p) => (Object.keys(p.f).length || Object.keys(p.d).length ? objects.put(Bun.deflateSync(canonical(p))) : null));
  return objects.put(Bun.deflateSync(JSON.stringify({ b })));
}

/** A folder's listing, its parts merged; `parts` names the part objects it was read from. Throws DamagedObjectError. */
function loadListing(objects: ObjectStore, hash: string): { listing: Listing; parts: string[] } {
  const read = (h: string): Listing & { b?: (string | null)[] } => {
    try {
      const l = JSON.parse(Buffer.from(Bun.inflateSync(new Uint8Array(objects.get(h)))).toString("utf8"));
      if (!l || typeof l !== "object") throw new Error("not an object");
      return l;
    } catch (e) {
      if (e instanceof DamagedObjectError) throw e;
      throw new DamagedObjectError(h, "not a listing");
    }
  };
  const top = read(hash);
  if (!Array.isArray(top.b)) return { listing: { f: top.f ?? {}, d: top.d ?? {} }, parts: [] };
  const listing: Listing = { f: {}, d: {} };
  const parts: string[] = [];
  for (const h of top.b) {
    if (typeof h !== "string") continue;
    parts.push(h);
    const part = read(h);
    Object.assign(listing.f, part.f ?? {});
    Object.assign(listing.d, part.d ?? {});
  }
  return { listing, parts };
}

/**
 * Whether every object a recorded state needs is there (listings read and checked, file contents present);
 * throws DamagedObjectError naming the first that is not. `seen` carries what earlier checks found whole, so
 * checking many points of one session reads each shared listing once.
 */
export function checkTree(objects: ObjectStore, root: string, seen: Set<string>): void {
  if (seen.has(root)) return;
  const { listing: l } = loadListing(objects, root);
  for (const [h] of Object.values(l.f)) {
    if (seen.has(h)) continue;
    if (!existsSync(objects.pathOf(h))) throw new DamagedObjectError(h, `missing from ${objects.dir}`);
    seen.add(h);
  }
  for (const h of Object.values(l.d)) checkTree(objects, h, seen);
  seen.add(root);
}
