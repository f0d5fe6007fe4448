// The `write` tool: creates or replaces a workspace file atomically. A temporary file is created next to the
// destination through a descriptor of the checked directory, flushed, and installed by link (create, which never
// clobbers) or rename (replace); the directory is then flushed so the new name survives a crash.
import * as fs from "node:fs";
import { randomHex, sha256Hex } from "../digest";
import * as path from "node:path";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { ownerGone, ownerTag, recordOwnedFile, TEMP_SUFFIX } from "../process/owned-files";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { cutUtf8 } from "../text/cut";
import { defineTool, type Tool, type ToolCallContext } from "./tool";
import { lineCounts, unifiedDiff } from "./line-diff";
import { changePreview, currentText } from "./write-preview";
import { assertOpenedInside, displayPath, resolveInWorkspace, WorkspacePath } from "../fs/workspace-paths";

export const WriteArgs = lazySchema((z) => z
  .strictObject({
    path: WorkspacePath.describe("File path relative to the workspace root, e.g. src/main.ts"),
    content: z
      .string()
      // A lone surrogate has no UTF-8 form; writing it would silently store U+FFFD instead.
      .refine((c) => c.isWellFormed(), "must be valid Unicode text: it contains an unpaired surrogate (\\uD800-\\uDFFF), which has no UTF-8 form")
      .describe("The complete new content of the file (UTF-8)"),
    mode: z
      .enum(["create", "replace"], { error: 'must be "create" (the file must not exist) or "replace" (it must exist)' })
      .describe('"create": a new file (missing parent directories are created); "replace": an existing file'),
    expected_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hexadecimal digits: the sha256 of the file's current bytes")
      .optional()
      .describe("For replace: the sha256 you last saw (from read or a previous write); the write fails if the file changed"),
  })
  .refine((a) => !(a.mode === "create" && a.expected_sha256 !== undefined), {
    message: 'applies only to mode "replace"; a file being created has no previous content',
    path: ["expected_sha256"],
  }));
type WriteArgs = z.infer<typeof WriteArgs>;

/** Mode of a created file, before the umask (a replaced file keeps its permission bits). */
export const CREATE_FILE_MODE = 0o644;

export function createWriteTool(scope: SessionScope): Tool {
  return defineTool({
    name: "write",
    description:
      'Write a whole UTF-8 file in the workspace. mode "create" makes a new file (and its missing directories) and ' +
      'fails if it exists; "replace" overwrites an existing file and fails if it does not. Pass expected_sha256 ' +
      "(from read or the previous write) to fail instead of overwriting changes you have not seen.",
    parameters: WriteArgs,
    risk: "filesystem",
    summary: (args, ctx) => {
      const real = precheck(args, ctx); // refuse escapes and mode mismatches before anyone is asked
      const head = `write ${displayPath(args.path)} (${args.mode}, ${Buffer.byteLength(args.content)} bytes)`;
      return `${head}\n${changePreview(args, real)}`;
    },
    label: (args) => `write ${displayPath(args.path)}`,
    execute: async (args, ctx) => {
      const before = args.mode === "replace" ? currentText(resolveInWorkspace(ctx.workspace, args.path, { forWrite: true })) : "";
      const result = await writeFile(args, ctx, scope.scvHome);
      const diff = before === undefined ? undefined : unifiedDiff(before, args.content, { maxLines: 0, maxChars: 1 });
      return diff ? { ...result, display: lineCounts(diff.added, diff.removed) } : result;
    },
  });
}

function precheck(args: WriteArgs, ctx: ToolCallContext): string {
  const real = resolveInWorkspace(ctx.workspace, args.path, { forWrite: true });
  checkMode(args, lstatOrUndefined(real));
  return real;
}

function checkMode(args: WriteArgs, current: fs.Stats | undefined): void {
  const shown = JSON.stringify(args.path);
  if (args.mode === "create" && current) {
    throw new ToolError(`path ${shown} already exists; use mode "replace" to overwrite it (read it first and pass its expected_sha256)`);
  }
  if (args.mode === "replace") {
    if (!current) throw new ToolError(`path ${shown} does not exist; use mode "create" to make a new file`);
    if (current.isDirectory()) throw new ToolError(`path ${shown} is a directory; write replaces files only`);
    if (!current.isFile()) throw new ToolError(`path ${shown} is not a regular file; write replaces regular files only`);
  }
}

async function writeFile(args: WriteArgs, ctx: ToolCallContext, scvHome: string) {
  const data = Buffer.from(args.content, "utf8");
  const real = resolveInWorkspace(ctx.workspace, args.path, { forWrite: true });
  const dir = path.dirname(real);
  const name = path.basename(real);
  if (args.mode === "create") createParents(dir, args.path);
  const dirFd = openDirectory(dir, args.path);
  // Paths through /proc/self/fd/N act like openat(): they reach the directory we opened and checked, even if a
  // component of `dir` is swapped for a symlink afterwards. Without /proc, fall back to the checked path.
  const base = fs.existsSync(`/proc/self/fd/${dirFd}`) ? `/proc/self/fd/${dirFd}` : dir;
  const inDir = (n: string) => `${base}/${n}`;
  let temp: string | undefined;
  const owned: (() => void)[] = [];
  try {
    assertOpenedInside(dirFd, ctx.workspace, args.path);
    removeStaleTemporaries(inDir);
    const current = lstatOrUndefined(inDir(name));
    checkMode(args, current);
    const fileMode = current ? current.mode & 0o777 : CREATE_FILE_MODE & ~process.umask();
    // Recorded before it exists, so a SCV killed mid-write leaves a record the next start-up sweep acts on.
    const record = (t: string) => {
      try {
        owned.push(recordOwnedFile(scvHome, path.join(dir, t)));
      } catch {
        // the owner in the name still lets the next write here remove it
      }
    };
    temp = await writeTemporary(inDir, name, data, fileMode, current, record);
    if (ctx.signal.aborted) throw new ToolError("cancelled before the file was installed; nothing changed");
    // "Observed immediately before the write": the check runs after the slow part, right before the install.
    if (args.expected_sha256) await checkExpectedSha256(inDir(name), args.expected_sha256.toLowerCase(), args.path);
    if (args.mode === "create") installNew(inDir(temp), inDir(name), args.path);
    else fs.renameSync(inDir(temp), inDir(name));
    temp = undefined;
    fs.fsyncSync(dirFd);
  } finally {
    if (temp) tryUnlink(inDir(temp));
    fs.closeSync(dirFd);
    for (const release of owned) release();
  }
  const sha256 = sha256Hex(data);
  const verb = args.mode === "create" ? "created" : "replaced";
  return {
    ok: true,
    output: `${verb} ${displayPath(args.path)}: wrote ${data.length} bytes, sha256=${sha256}`,
    event: { path: args.path, mode: args.mode, bytes: data.length, sha256 },
  };
}

/** A new file beside the destination (O_EXCL|O_NOFOLLOW, so never an existing file or link), written and synced. */
async function writeTemporary(
  inDir: (n: string) => string,
  name: string,
  data: Buffer,
  fileMode: number,
  replaced: fs.Stats | undefined,
  record: (temp: string) => void,
): Promise<string> {
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
  for (let attempt = 0; ; attempt++) {
    // The owner (PID and start time) is in the name, so a later write here can tell a killed writer's file.
    const temp = `.${cutUtf8(name, 100)}.${ownerTag()}.${randomHex(6)}${TEMP_SUFFIX}`;
    record(temp);
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(inDir(temp), flags, 0o600); // private until complete
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
      await fh.close().catch(() => {});
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

async function checkExpectedSha256(file: string, expected: string, requested: string): Promise<void> {
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
  if (actual !== expected) {
    throw new ToolError(
      `path ${JSON.stringify(requested)} changed since you saw it: its sha256 is now ${actual}, not the expected ${expected}. ` +
        `Nothing was written. Read the file again, then write with expected_sha256 "${actual}" if your change still applies.`,
    );
  }
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
    return fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
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

function lstatOrUndefined(p: string): fs.Stats | undefined {
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
