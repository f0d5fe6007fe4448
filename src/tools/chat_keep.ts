// chat_keep: moves a file a chat user sent from the expiring chat media to the conversation's kept files. It is
// linked under its kept name (never replacing a file) before the original goes; across disks it is first
// copied to a private temporary file beside the kept files, so a failed copy leaves nothing under that name.
import { closeSync, constants, fsyncSync, linkSync, lstatSync, openSync, readSync, writeSync } from "node:fs";
import { randomHex } from "../digest";
import { basename, dirname, extname, isAbsolute, join, normalize } from "node:path";
import { lazySchema } from "../lazy-schema";
import { appendLine, keptRecordsFile, readKept } from "../chatlog/log";
import { ensurePrivateDir, tryUnlink } from "../fs/private-file";
import { chatScope } from "./chat-place";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";

const Args = lazySchema((z) => z.strictObject({ path: z.string().min(1).describe("the absolute path shown with the file in the turn or in chat_history") }));

/** The kept name: the user's file name without the media directory's random prefix. */
function keptName(mediaName: string): string {
  return mediaName.replace(/^[0-9a-f]{6}-/, "") || mediaName;
}

/** Links `source` into `dir` under `name` or the first free `name-2.ext`, `name-3.ext`…; never replaces. */
function linkFree(source: string, dir: string, name: string): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 1; n < 10_000; n++) {
    const target = join(dir, n === 1 ? name : `${stem}-${n}${ext}`);
    try {
      linkSync(source, target);
      return target;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  throw new ToolError(`too many kept files named like ${name}`);
}

/** The cross-disk path: a private copy beside the kept files, then linked under its name. */
function copyBeside(source: string, dir: string): string {
  const tmp = join(dir, `.keep-${randomHex(6)}.tmp`);
  const src = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const out = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let n; (n = readSync(src, buf, 0, buf.length, null)) > 0; ) writeSync(out, buf, 0, n);
      fsyncSync(out);
    } finally {
      closeSync(out);
    }
  } catch (e) {
    tryUnlink(tmp);
    throw e;
  } finally {
    closeSync(src);
  }
  return tmp;
}

function keepFile(path: string, media: string, keptDir: string, logDir: string): { kept: string; already: boolean } {
  if (!isAbsolute(path)) throw new ToolError(`give the absolute path shown with the file, not ${path}`);
  const file = normalize(path);
  if (dirname(file) !== media) throw new ToolError(`${path} is not a file of this chat's media directory (${media})`);
  const previous = readKept(logDir).find((r) => r.from === file);
  if (previous) return { kept: previous.to, already: true };
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st) throw new ToolError(`${path} is no longer in the chat media (it may have expired)`);
  if (st.isSymbolicLink() || !st.isFile()) throw new ToolError(`${path} is not a regular file`);
  ensurePrivateDir(keptDir);
  const name = keptName(basename(file));
  let kept: string;
  try {
    kept = linkFree(file, keptDir, name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EXDEV") throw e;
    const tmp = copyBeside(file, keptDir);
    try {
      kept = linkFree(tmp, keptDir, name);
    } finally {
      tryUnlink(tmp);
    }
  }
  appendLine(keptRecordsFile(logDir), { from: file, to: kept });
  tryUnlink(file);
  return { kept, already: false };
}

export function createChatKeepTool(scope: SessionScope): Tool | undefined {
  const chat = chatScope(scope);
  if (!chat?.logDir || !chat.keptDir) return undefined;
  const { mediaDir, keptDir, logDir } = chat;
  return defineTool({
    name: "chat_keep",
    kind: "edit",
    description: `Keeps a file the user sent in this chat for good: it moves from the chat media (files expire after ${scope.config.channels.keep_days} days) to this conversation's kept files, which nothing removes. Give the absolute path shown with the file.`,
    parameters: Args,
    risk: "filesystem",
    summary: (a) => `keep ${a.path} in ${keptDir}`,
    label: (a) => `chat_keep ${basename(a.path)}`,
    async execute(a) {
      const r = keepFile(a.path, mediaDir, keptDir, logDir);
      return r.already ? `already kept: ${r.kept}` : `kept: ${r.kept}`;
    },
  });
}
