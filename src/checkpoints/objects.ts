// Content-addressed objects: a file's bytes (or a directory listing) stored once under the SHA-256 of its
// content, in $SCV_HOME/state/checkpoints/objects/ab/cdef… (directories 0700, files 0600). An unchanged file
// costs nothing the second time. An object is written to a temporary name and renamed, so a reader never sees
// half of one; it is checked against its name when read, so a damaged one is reported, never restored.
import * as fs from "node:fs";
import { ensurePrivateDir, tryUnlink } from "../fs/private-file";

export class DamagedObjectError extends Error {
  constructor(readonly hash: string, why: string) {
    super(`checkpoint object ${hash.slice(0, 12)} is ${why}`);
    this.name = "DamagedObjectError";
  }
}

const HASH = /^[0-9a-f]{64}$/;

export class ObjectStore {
  private readonly known = new Set<string>();
  /** Bytes of objects this process stored (the store's size is measured once and grown by this). */
  written = 0;
  private readonly dirs = new Set<string>();

  constructor(readonly dir: string) {}

  pathOf(hash: string): string {
    return `${this.dir}/${hash.slice(0, 2)}/${hash.slice(2)}`;
  }

  static hash(data: Uint8Array | string): string {
    return new Bun.CryptoHasher("sha256").update(data).digest("hex");
  }

  /** Stores `data` unless an object of the same content is there; returns its hash. Throws on a failing disk (ENOSPC). */
  put(data: Uint8Array | string, hash = ObjectStore.hash(data)): string {
    if (this.known.has(hash)) return hash;
    const file = this.pathOf(hash);
    if (fs.existsSync(file)) {
      this.known.add(hash);
      return hash;
    }
    const sub = `${this.dir}/${hash.slice(0, 2)}`;
    if (!this.dirs.has(sub)) {
      ensurePrivateDir(sub);
      this.dirs.add(sub);
    }
    const tmp = `${sub}/.${hash.slice(2, 14)}.${process.pid}.${Math.random().toString(16).slice(2)}.tmp`;
    try {
      fs.writeFileSync(tmp, data, { mode: 0o600, flag: "wx" });
      fs.renameSync(tmp, file);
      this.written += typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    } catch (e) {
      tryUnlink(tmp);
      throw e;
    }
    this.known.add(hash);
    return hash;
  }

  /** The object's bytes, checked against its name; throws DamagedObjectError when it is missing or altered. */
  get(hash: string): Buffer {
    if (!HASH.test(hash)) throw new DamagedObjectError(hash.padEnd(12, "?"), "named wrongly in its index");
    let data: Buffer;
    try {
      data = fs.readFileSync(this.pathOf(hash));
    } catch {
      throw new DamagedObjectError(hash, `missing from ${this.dir}`);
    }
    if (ObjectStore.hash(data) !== hash) throw new DamagedObjectError(hash, "damaged (its content no longer matches its name)");
    return data;
  }

  /** Forgets what this process believes is stored (after objects were removed). */
  forget(): void {
    this.known.clear();
  }
}
