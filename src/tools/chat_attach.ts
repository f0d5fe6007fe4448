// chat_attach: sends a file to the chat after the reply text. The model's input can carry injected
// instructions, so the file is pinned first (an O_PATH descriptor), must pass every refusal below where that
// descriptor really is, and is read through the same descriptor into the outbox (0600).
import { closeSync, constants, fstatSync, fsyncSync, openSync, readlinkSync, readSync, realpathSync, writeSync } from "node:fs";
import { randomHex } from "../digest";
import { basename, isAbsolute, join, sep } from "node:path";
import { lazySchema } from "../lazy-schema";
import { mediaRoot, outboxMediaDir } from "../chatlog/paths";
import { ensurePrivateDir, tryUnlink } from "../fs/private-file";
import { MiB } from "../fs/safe-read";
import { chatScope } from "./chat-place";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";
import { isSecretLikePath } from "../fs/workspace-paths";

const MAX_ATTACH_BYTES = 25 * MiB;
const CAPTION_BYTES = 1024;

function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const SECRET = "looks like it holds secrets (a credential or key location, a host secret, or a secret-like name); SCV does not send such files to a chat";

/** A chat media copy's or kept file's name without the random prefix SCV gave it (`3fa9c1-shadow` -> `shadow`). */
function originalName(name: string): string {
  return name.replace(/^[0-9a-f]{6,12}-/, "");
}

/** Why SCV will not send the file at `resolved` (its path with symlinks resolved), or undefined. */
export function refusal(resolved: string, given: string, scope: SessionScope): string | undefined {
  const scvHome = real(scope.scvHome);
  if (under(resolved, scvHome)) {
    // Only the chat media and this chat's kept files, even when SCV_HOME is ~/.scv (a secret-like location).
    const chat = chatScope(scope);
    const inMedia = under(resolved, real(mediaRoot(scope.scvHome))) && !under(resolved, real(outboxMediaDir(scope.scvHome)));
    const inKept = !!chat?.keptDir && under(resolved, real(chat.keptDir));
    if (!inMedia && !inKept) return `${given} is inside the SCV instance directory (${scope.scvHome}: settings, credentials, agent homes and state)`;
    // The name the sender's file had: a copy of a secret-like file is refused like the file itself.
    return isSecretLikePath(originalName(basename(resolved))) ? `${given} ${SECRET}` : undefined;
  }
  // The same lists `read` uses: credential and key locations, host secrets, secret-like names (any component).
  if (isSecretLikePath(given) || isSecretLikePath(resolved)) return `${given} ${SECRET}`;
  return undefined;
}

export interface AttachedCopy {
  path: string;
  name: string;
  bytes: number;
}

/** Linux's O_PATH: a descriptor that names a file without opening it for reading (node has no constant for it). */
const O_PATH = 0o10000000;

/**
 * Opens first, then checks: the file is pinned by an O_PATH descriptor, every check is made on where that
 * descriptor really is (/proc/self/fd/N), and the bytes are read by reopening that same descriptor, so swapping
 * the path or a parent directory for a symlink at any moment cannot change which file is checked and sent.
 */
export function copyForChat(given: string, scope: SessionScope, hooks: { afterOpen?(path: string): void } = {}): AttachedCopy {
  const abs = isAbsolute(given) ? given : join(scope.workspace, given);
  let handle: number;
  try {
    handle = openSync(abs, O_PATH);
  } catch {
    throw new ToolError(`${given} does not exist; give a path relative to the workspace or an absolute one`);
  }
  let fd: number | undefined;
  let out: number | undefined;
  const dir = outboxMediaDir(scope.scvHome);
  let copy = "";
  try {
    hooks.afterOpen?.(abs);
    const resolved = readlinkSync(`/proc/self/fd/${handle}`);
    const why = refusal(resolved, abs, scope);
    if (why) throw new ToolError(`not sent: ${why}`);
    const st = fstatSync(handle);
    checkFile(given, st);
    fd = openSync(`/proc/self/fd/${handle}`, constants.O_RDONLY | constants.O_NONBLOCK);
    const fst = fstatSync(fd);
    if (fst.dev !== st.dev || fst.ino !== st.ino) throw new ToolError(`not sent: ${given} was replaced by another file while it was opened`);
    const name = basename(resolved);
    copy = join(dir, `${randomHex(6)}-${name}`);
    ensurePrivateDir(dir);
    out = openSync(copy, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    const buf = Buffer.allocUnsafe(MiB);
    let total = 0;
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      total += n;
      if (total > MAX_ATTACH_BYTES) throw new ToolError(`not sent: ${given} grew past 25 MiB while it was copied`);
      writeSync(out, buf, 0, n);
    }
    fsyncSync(out);
    return { path: copy, name, bytes: total };
  } catch (e) {
    if (out !== undefined) tryUnlink(copy);
    if (e instanceof ToolError) throw e;
    throw new ToolError(`cannot send ${given}: ${(e as Error).message}`);
  } finally {
    if (out !== undefined) closeSync(out);
    if (fd !== undefined) closeSync(fd);
    closeSync(handle);
  }
}

function checkFile(given: string, st: import("node:fs").Stats) {
  if (!st.isFile()) throw new ToolError(`not sent: ${given} is not a regular file`);
  if (st.size === 0) throw new ToolError(`not sent: ${given} is empty`);
  if (st.size > MAX_ATTACH_BYTES) throw new ToolError(`not sent: ${given} is ${(st.size / MiB).toFixed(1)} MiB; a chat file may be at most 25 MiB`);
}

const Args = lazySchema((z) => z.strictObject({
  path: z.string().min(1).describe("the file: absolute or relative to the workspace"),
  caption: z
    .string()
    .refine((s) => Buffer.byteLength(s) <= CAPTION_BYTES, `must be at most ${CAPTION_BYTES} bytes`)
    .optional()
    .describe("shown in the reply as <name>: <caption>"),
}));

export function createChatAttachTool(scope: SessionScope): Tool | undefined {
  if (!chatScope(scope)) return undefined;
  return defineTool({
    name: "chat_attach",
    kind: "other",
    description:
      "Sends a file to this chat after your reply text: images arrive as pictures, anything else as a file. Call it once per file; a reply carries at most 8 files of at most 25 MiB each. Secrets, key locations and SCV's own state are refused.",
    parameters: Args,
    risk: "network",
    summary: (a) => `send ${a.path} to the chat${a.caption ? ` (caption: ${a.caption})` : ""}`,
    label: (a) => `chat_attach ${a.path}`,
    async execute(a, ctx) {
      const copy = copyForChat(a.path, ctx);
      return {
        ok: true,
        output: `attached ${copy.name} (${copy.bytes} bytes); it is sent after your reply. Outbox copy: ${copy.path}`,
        event: { chat_attachment: { path: copy.path, name: copy.name, ...(a.caption ? { caption: a.caption } : {}) } },
      };
    },
  });
}
