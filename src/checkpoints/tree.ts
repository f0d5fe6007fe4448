// A recorded workspace state as objects, one per directory (as git stores trees): a directory whose files did
// not change keeps its object. A recording that changed a few paths since the session's last one is stored as a
// delta instead, one small object naming the earlier root and the paths set or removed, so the store grows with
// the bytes that changed, not with the listings on their paths; every DELTA_CHAIN_MAX deltas (or when a
// recording changed more than DELTA_MAX_PATHS paths) the state is written as folder listings again. A
// checkpoint is named by its root object's hash (a listing or a delta).
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
/** Deltas in a row before the state is written as folder listings again (a restore reads the whole chain). */
const DELTA_CHAIN_MAX = 1000;
/** A recording that changed more paths than this is written as folder listings (they are smaller then). */
const DELTA_MAX_PATHS = 256;

interface Delta {
  base: string;
  /** path -> [hash, size, mode] */
  set: Record<string, [string, number, number]>;
  del: string[];
}

/**
 * Writes a session's states and returns each one's root hash. With `changed` (the paths that differ from the
 * last write) it writes a delta against that write; otherwise, or when the chain is long or the change large,
 * folder listings, of which only the folders on paths changed since the last listing write are serialised and
 * hashed again.
 */
export class TreeWriter {
  private hashes = new Map<string, string>();
  private last: { root: string; depth: number } | undefined;
  /** Paths changed since the last listing write. */
  private pending = new Set<string>();

  /** The next write serialises every folder again. */
  forget(): void {
    this.hashes = new Map();
    this.last = undefined;
    this.pending = new Set();
  }

  write(objects: ObjectStore, state: WorkspaceState, changed?: ReadonlySet<string>): string {
    if (changed && this.last && this.last.depth < DELTA_CHAIN_MAX && changed.size <= DELTA_MAX_PATHS) {
      if (!changed.size) return this.last.root;
      const delta: Delta = { base: this.last.root, set: {}, del: [] };
      for (const rel of [...changed].sort()) {
        this.pending.add(rel);
        const f = state.get(rel);
        if (f) delta.set[rel] = [f.hash, f.size, f.mode];
        else delta.del.push(rel);
      }
      const root = objects.put(Bun.deflateSync(JSON.stringify(delta)));
      this.last = { root, depth: this.last.depth + 1 };
      return root;
    }
    let dirtyPaths: Set<string> | undefined;
    if (changed && this.hashes.size) {
      dirtyPaths = this.pending;
      for (const rel of changed) dirtyPaths.add(rel);
    }
    const root = this.writeListings(objects, state, dirtyPaths);
    this.pending = new Set();
    this.last = { root, depth: 0 };
    return root;
  }

  private writeListings(objects: ObjectStore, state: WorkspaceState, changed?: ReadonlySet<string>): string {
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
    if (changed) {
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

/** Reads a recorded state back; throws DamagedObjectError when a listing or delta is missing or damaged. */
export function readTree(objects: ObjectStore, root: string): WorkspaceState {
  const deltas: Delta[] = [];
  let hash = root;
  for (let d = readDelta(objects, hash); d; d = readDelta(objects, hash)) {
    deltas.push(d);
    hash = d.base;
  }
  const state: WorkspaceState = new Map();
  const visit = (h: string, prefix: string) => {
    const { listing: l } = loadListing(objects, h);
    for (const [name, [fh, size, mode]] of Object.entries(l.f)) state.set(prefix + name, { hash: fh, size, mode });
    for (const [name, dh] of Object.entries(l.d)) visit(dh, `${prefix}${name}/`);
  };
  visit(hash, "");
  for (const d of deltas.reverse()) {
    for (const [rel, [fh, size, mode]] of Object.entries(d.set)) state.set(rel, { hash: fh, size, mode });
    for (const rel of d.del) state.delete(rel);
  }
  return state;
}

/** The delta `hash` names, or undefined when it names a listing; throws DamagedObjectError when unreadable. */
function readDelta(objects: ObjectStore, hash: string): Delta | undefined {
  const top = readObject(objects, hash);
  if (typeof top.base !== "string") return undefined;
  if (!top.set || typeof top.set !== "object" || !Array.isArray(top.del)) throw new DamagedObjectError(hash, "not a delta");
  return top as unknown as Delta;
}

/** Every object a recorded state refers to (listings, deltas and file contents), added to `into`; damaged ones are skipped. */
export function collectObjects(objects: ObjectStore, root: string, into: Set<string>): void {
  while (!into.has(root)) {
    let delta: Delta | undefined;
    try {
      delta = readDelta(objects, root);
    } catch {
      into.add(root);
      return;
    }
    if (!delta) break;
    into.add(root);
    for (const [h] of Object.values(delta.set)) into.add(h);
    root = delta.base;
  }
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
/** One stored listing, part or delta, parsed; throws DamagedObjectError. */
function readObject(objects: ObjectStore, h: string): Record<string, unknown> {
  try {
    const l = JSON.parse(Buffer.from(Bun.inflateSync(new Uint8Array(objects.get(h)))).toString("utf8"));
    if (!l || typeof l !== "object") throw new Error("not an object");
    return l;
  } catch (e) {
    if (e instanceof DamagedObjectError) throw e;
    throw new DamagedObjectError(h, "not a listing");
  }
}

function loadListing(objects: ObjectStore, hash: string): { listing: Listing; parts: string[] } {
  const read = (h: string) => readObject(objects, h) as unknown as Listing & { b?: (string | null)[] };
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
  const chain: string[] = [];
  for (let d = seen.has(root) ? undefined : readDelta(objects, root); d; d = seen.has(root) ? undefined : readDelta(objects, root)) {
    for (const [h] of Object.values(d.set)) {
      if (seen.has(h)) continue;
      if (!existsSync(objects.pathOf(h))) throw new DamagedObjectError(h, `missing from ${objects.dir}`);
      seen.add(h);
    }
    chain.push(root);
    root = d.base;
  }
  checkListings(objects, root, seen);
  for (const h of chain) seen.add(h);
}

function checkListings(objects: ObjectStore, root: string, seen: Set<string>): void {
  if (seen.has(root)) return;
  const { listing: l } = loadListing(objects, root);
  for (const [h] of Object.values(l.f)) {
    if (seen.has(h)) continue;
    if (!existsSync(objects.pathOf(h))) throw new DamagedObjectError(h, `missing from ${objects.dir}`);
    seen.add(h);
  }
  for (const h of Object.values(l.d)) checkListings(objects, h, seen);
  seen.add(root);
}
