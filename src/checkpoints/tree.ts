// A recorded workspace state as objects, one per directory (as git stores trees): a directory whose files did
// not change keeps its object, so a turn that changes 3 files adds 3 file objects and the listings on their
// paths, not a new list of every file. A checkpoint is named by its root listing's hash.
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

/** Writes the state's listings (only those not stored yet) and returns the root's hash. */
export function writeTree(objects: ObjectStore, state: WorkspaceState): string {
  const dirs = new Map<string, Listing>([["", { f: {}, d: {} }]]);
  const listing = (dir: string): Listing => {
    let l = dirs.get(dir);
    if (!l) {
      l = { f: {}, d: {} };
      dirs.set(dir, l);
      const cut = dir.lastIndexOf("/");
      listing(cut < 0 ? "" : dir.slice(0, cut)); // every parent exists, so every listing is reached from the root
    }
    return l;
  };
  for (const [rel, f] of state) {
    const cut = rel.lastIndexOf("/");
    listing(cut < 0 ? "" : rel.slice(0, cut)).f[rel.slice(cut + 1)] = [f.hash, f.size, f.mode];
  }
  // Deepest first, so each listing's subdirectory hashes are known when it is written.
  const order = [...dirs.keys()].sort((a, b) => depth(b) - depth(a));
  let root = "";
  for (const dir of order) {
    const h = objects.put(canonical(dirs.get(dir)!));
    if (dir === "") root = h;
    else {
      const cut = dir.lastIndexOf("/");
      dirs.get(cut < 0 ? "" : dir.slice(0, cut))!.d[dir.slice(cut + 1)] = h;
    }
  }
  return root;
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
      l = JSON.parse(objects.get(hash).toString("utf8")) as Listing;
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
    l = JSON.parse(objects.get(root).toString("utf8")) as Listing;
  } catch {
    return;
  }
  for (const [h] of Object.values(l.f ?? {})) into.add(h);
  for (const h of Object.values(l.d ?? {})) collectObjects(objects, h, into);
}
