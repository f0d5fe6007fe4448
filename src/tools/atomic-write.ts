// Installing a workspace file atomically, shared by `write` and `edit`. A temporary file is created next to the
// destination through a descriptor of the checked directory, flushed, and installed by link (create, which never
// clobbers) or rename (replace); the directory is then flushed so the new name survives a crash. Stale temporary
// files of killed writers in that directory are swept first.
// The no-follow folder access and the temporary name are shared with the checkpoint restore (fs/no-follow.ts,
// process/owned-files.ts); this file keeps what needs the tools' wording and the owned-file records.
import * as fs from "node:fs";
import * as path from "node:path";
import { sha256Hex } from "../digest";
import type { EditorFiles } from "../fs/editor-files";
import { CREATE_EXCLUSIVE, folderBase, openFolder } from "../fs/no-follow";
import { ownerGone, recordOwnedFile, TEMP_SUFFIX, temporaryName } from "../process/owned-files";
import { ToolError } from "../errors";
import { assertOpenedInside, resolveInWorkspace } from "../fs/workspace-paths";

/** Mode of a created file, before the umask (a replaced file keeps its permission bits). */
export const CREATE_FILE_MODE = 0o644;

export interface AtomicWrite {
  workspace: string;
  scvHome: string;
  /** The workspace-relative path as the model gave it (for messages). */
  requested: string;
  data: Uint8Array;
  mode: "create" | "replace";
  /** Lower-case hex; checked against the file right before the install. */
  expectedSha256?: string;
  /** How to say "the file changed" when expectedSha256 does not match (defaults to write's advice). */
  staleAdvice?: (actual: string) => string;
  signal: AbortSignal;
  /** The editor's file access (`scv acp`): with writes offered, the new text goes to the editor instead. */
  editor?: EditorFiles;
}

/** Writes `w.data` to the workspace path atomically; throws ToolError with the original file unchanged. */
export async function writeAtomically(w: AtomicWrite): Promise<void> {
  const real = resolveInWorkspace(w.workspace, w.requested, { forWrite: true });
  const dir = path.dirname(real);
  const name = path.basename(real);
  if (w.mode === "create") createParents(dir, w.requested);
  if (w.editor?.write) return writeThroughEditor(w, real, w.editor.write);
  const dirFd = openDirectory(dir, w.requested);
  // Paths through /proc/self/fd/N act like openat(): they reach the directory we opened and checked, even if a
  // component of `dir` is swapped for a symlink afterwards. Without /proc, fall back to the checked path.
  const base = folderBase(dirFd, dir);
  const inDir = (n: string) => `${base}/${n}`;
  let temp: string | undefined;
  const owned: (() => void)[] = [];
  try {
    assertOpenedInside(dirFd, w.workspace, w.requested);
    removeStaleTemporaries(inDir);
    const current = lstatOrUndefined(inDir(name));
    checkMode(w.mode, w.requested, current);
    const fileMode = current ? current.mode & 0o777 : CREATE_FILE_MODE & ~process.umask();
    // Recorded before it exists, so a SCV killed mid-write leaves a record the next start-up sweep acts on.
    const record = (t: string) => {
      try {
        owned.push(recordOwnedFile(w.scvHome, path.join(dir, t)));
      } catch {
        // the owner in the name still lets the next write here remove it
      }
    };
    temp = await writeTemporary(inDir, name, w.data, fileMode, current, record);
    if (w.signal.aborted) throw new ToolError("cancelled before the file was installed; nothing changed");
    // "Observed immediately before the write": the check runs after the slow part, right before the install.
    if (w.expectedSha256) await checkExpectedSha256(inDir(name), w.expectedSha256, w.requested, w.staleAdvice);
    if (w.mode === "create") installNew(inDir(temp), inDir(name), w.requested);
    else fs.renameSync(inDir(temp), inDir(name));
    temp = undefined;
    fs.fsyncSync(dirFd);
  } finally {
    if (temp) tryUnlink(inDir(temp));
    fs.closeSync(dirFd);
    for (const release of owned) release();
  }
}

/**
 * The write through the editor (its buffer, which it saves as it does), after the same path and mode checks;
 * expectedSha256 is checked against the text the editor has where it offers reads, else the file on disk.
 */
async function writeThroughEditor(w: AtomicWrite, real: string, write: (path: string, content: string) => Promise<void>): Promise<void> {
  checkMode(w.mode, w.requested, lstatOrUndefined(real));
  if (w.expectedSha256) {
    if (w.editor?.read) {
      const actual = sha256Hex(Buffer.from(await w.editor.read(real), "utf8"));
      if (actual !== w.expectedSha256) throw new ToolError(staleMessage(w.requested, actual, w.expectedSha256, w.staleAdvice));
    } else await checkExpectedSha256(real, w.expectedSha256, w.requested, w.staleAdvice);
  }
  if (w.signal.aborted) throw new ToolError("cancelled before the file was written; nothing changed");
  try {
    await write(real, Buffer.from(w.data).toString("utf8"));
  } catch (e) {
    throw new ToolError(`the editor could not write ${JSON.stringify(w.requested)}: ${(e as Error).message}; the file is unchanged`);
  }
}

/** Create needs no file at the path; replace needs a regular file there. */
export function checkMode(mode: "create" | "replace", requested: string, current: fs.Stats | undefined): void {
  const shown = JSON.stringify(requested);
  if (mode === "create" && current) {
    throw new ToolError(`path ${shown} already exists; use mode "replace" to overwrite it (read it first and pass its expected_sha256)`);
  }
  if (mode === "replace") {
    if (!current) throw new ToolError(`path ${shown} does not exist; use mode "create" to make a new file`);
    if (current.isDirectory()) throw new ToolError(`path ${shown} is a directory; only files can be replaced`);
    if (!current.isFile()) throw new ToolError(`path ${shown} is not a regular file; only regular files can be replaced`);
  }
}

/** A new file beside the destination (O_EXCL|O_NOFOLLOW, so never an existing file or link), written and synced. */
async function writeTemporary(
  inDir: (n: string) => string,
  name: string,
  data: Uint8Array,
  fileMode: number,
  replaced: fs.Stats | undefined,
  record: (temp: string) => void,
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    // The owner (PID and start time) is in the name, so a later write here can tell a killed writer's file.
    const temp = temporaryName(name);
    record(temp);
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(inDir(temp), CREATE_EXCLUSIVE, 0o600); // private until complete
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST" && attempt < 5) continue;
      throw new ToolError(`cannot create a temporary file next to the destination: ${errCode(e)}`);
    }
    try {
      await fh.writeFile(data);
      await fh.chmod(fileMode);
      if (replaced && process.getuid?.() === 0 && (replaced.uid !== 0 || replaced.gid !== 0)) {
        await fh.chown(replaced.uid, replaced.gid).catch(() => {}); // root keeps the replaced file's owner
      }
      await fh.sync();
      await fh.close();
      return temp;
    } catch (e) {
      await fh.close().catch(() => {}); // the write's own error (rethrown below) is the one worth telling
      tryUnlink(inDir(temp));
      throw new ToolError(`writing the new content failed: ${errCode(e)}; the original file is unchanged`);
    }
  }
}

/** Removes temporary files in the directory left by writers that no longer run (SIGKILLed mid-write). */
function removeStaleTemporaries(inDir: (n: string) => string): void {
  let names: string[];
  try {
    names = fs.readdirSync(inDir("."));
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(".") || !n.endsWith(TEMP_SUFFIX) || !ownerGone(n)) continue;
    try {
      if (fs.lstatSync(inDir(n)).isFile()) tryUnlink(inDir(n));
    } catch {
      // gone meanwhile
    }
  }
}

/** Installs a created file without ever replacing one that appeared meanwhile (link fails with EEXIST). */
function installNew(temp: string, dest: string, requested: string): void {
  try {
    fs.linkSync(temp, dest);
  } catch (e) {
    const code = errCode(e);
    if (code === "EEXIST") throw new ToolError(`path ${JSON.stringify(requested)} was created by someone else meanwhile; use mode "replace" to overwrite it`);
    // A filesystem without hard links: check and rename (a narrow race, documented).
    if (lstatOrUndefined(dest)) throw new ToolError(`path ${JSON.stringify(requested)} already exists; use mode "replace"`);
    fs.renameSync(temp, dest);
    return;
  }
  fs.unlinkSync(temp);
}

async function checkExpectedSha256(file: string, expected: string, requested: string, staleAdvice?: (actual: string) => string): Promise<void> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    throw new ToolError(`path ${JSON.stringify(requested)} cannot be checked against expected_sha256: ${errCode(e)}`);
  }
  const hash = new Bun.CryptoHasher("sha256");
  try {
    if (!(await fh.stat()).isFile()) throw new ToolError(`path ${JSON.stringify(requested)} is no longer a regular file`);
    const chunk = Buffer.alloc(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
  const actual = hash.digest("hex");
  if (actual !== expected) throw new ToolError(staleMessage(requested, actual, expected, staleAdvice));
}

function staleMessage(requested: string, actual: string, expected: string, staleAdvice?: (actual: string) => string): string {
  const advice = staleAdvice?.(actual) ?? `Read the file again, then write with expected_sha256 "${actual}" if your change still applies.`;
  return `path ${JSON.stringify(requested)} changed since you saw it: its sha256 is now ${actual}, not the expected ${expected}. Nothing was written. ${advice}`;
}

/** Creates the missing directories of a path already resolved inside the workspace, one level at a time. */
function createParents(dir: string, requested: string): void {
  const missing: string[] = [];
  for (let p = dir; !lstatOrUndefined(p); p = path.dirname(p)) missing.unshift(p);
  for (const d of missing) {
    try {
      fs.mkdirSync(d, 0o755);
    } catch (e) {
      if (errCode(e) !== "EEXIST") throw new ToolError(`cannot create directory for ${JSON.stringify(requested)}: ${errCode(e)}`);
    }
    if (!fs.lstatSync(d).isDirectory()) throw new ToolError(`path ${JSON.stringify(requested)}: a parent changed while being created; refused`);
    fsyncDirectory(path.dirname(d));
  }
}

function openDirectory(dir: string, requested: string): number {
  try {
    return openFolder(dir);
  } catch (e) {
    const code = errCode(e);
    const shown = JSON.stringify(requested);
    if (code === "ENOENT") throw new ToolError(`the directory of ${shown} does not exist; use mode "create" to make it`);
    if (code === "ELOOP") throw new ToolError(`path ${shown}: its directory changed to a symbolic link; refused`);
    throw new ToolError(`cannot open the directory of ${shown}: ${code}`);
  }
}

function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch (e) {
    if (errCode(e) === "ENOENT" || errCode(e) === "ENOTDIR") return undefined;
    throw new ToolError(`cannot inspect the destination: ${errCode(e)}`);
  }
}

function tryUnlink(p: string): void {
  try {
    fs.unlinkSync(p);
  } catch {
    // already gone
  }
}

function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
}
