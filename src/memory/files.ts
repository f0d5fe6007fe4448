// The owner's memory on disk: plain Markdown files under $SCV_HOME/memory that the owner can open in an editor.
// USER.md is about the owner; projects/<workspace-id>.md is about one workspace, keyed by its real path and
// never stored in the repository. Files are read through the safe reader (a FIFO, a link or a huge file cannot
// stall a session) and written atomically, 0600 in 0700 directories. Each file has a cap: a write through
// `updateMemory` never grows a file past it, and a file edited by hand beyond it is used up to it with a notice.
import { lstatSync } from "node:fs";
import { basename, join } from "node:path";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../fs/private-file";
import { KiB, readBoundedBytes, readBoundedPrefix, SafeReadError } from "../fs/safe-read";
import type { Config } from "../config/schema";
import { sha256Hex } from "../digest";

export type MemoryScope = "user" | "project";

/** Where a session's or command's memory lives: the SCV home, the workspace (a real path) and the caps. */
export interface MemoryPlace {
  home: string;
  workspace: string;
  config: Config["memory"];
}

/** The most bytes any memory file is read to (the largest cap the config accepts). */
export const MEMORY_READ_MAX = 256 * KiB;

export function memoryDir(home: string): string {
  return join(home, "memory");
}

/**
 * The workspace's project-notes name: its folder name (for the owner browsing the directory) and a digest of
 * its real path (so two folders of the same name never share notes).
 */
export function workspaceId(workspace: string): string {
  const name = basename(workspace).toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[.-]+/, "").slice(0, 40);
  return `${name || "root"}-${sha256Hex(workspace).slice(0, 12)}`;
}

export function memoryFile(place: Pick<MemoryPlace, "home" | "workspace">, scope: MemoryScope): string {
  const dir = memoryDir(place.home);
  return scope === "user" ? join(dir, "USER.md") : join(dir, "projects", `${workspaceId(place.workspace)}.md`);
}

export function memoryCap(place: Pick<MemoryPlace, "config">, scope: MemoryScope): number {
  return scope === "user" ? place.config.user_max_bytes : place.config.project_max_bytes;
}

/** The config key of a scope's cap, for messages that say how to raise it. */
export function capKey(scope: MemoryScope): string {
  return scope === "user" ? "memory.user_max_bytes" : "memory.project_max_bytes";
}

/** A file's name as the owner and the model read it: `USER.md`, `the project notes`. */
export function fileTitle(scope: MemoryScope): string {
  return scope === "user" ? "USER.md" : "the project notes";
}

/** One memory file as sessions use it. */
export interface MemoryState {
  scope: MemoryScope;
  file: string;
  cap: number;
  /** What sessions use: the whole file, or its first `cap` bytes cut at a line end when it is larger. */
  text: string;
  /** Bytes on disk (0 when the file is missing or unusable). */
  size: number;
  /** Said to the owner when the file is not used as it stands (over its cap, not UTF-8, not a regular file). */
  notice?: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decode(file: string, bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new SafeReadError(file, "unreadable", `memory file ${file} is not UTF-8 text; save it as UTF-8 (or remove it with \`scv memory clear\`)`);
  }
}

/** `bytes` cut at its last line end, or (with none) before a character the cap split. */
function prefixAtLineEnd(bytes: Uint8Array): Uint8Array {
  const nl = bytes.lastIndexOf(0x0a);
  if (nl > 0) return bytes.subarray(0, nl + 1);
  let lead = bytes.length - 1;
  while (lead >= 0 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  if (lead < 0) return bytes;
  const b = bytes[lead]!;
  const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return lead + length <= bytes.length ? bytes : bytes.subarray(0, lead);
}

/** Reads a memory file for a session's instructions. Never throws: a problem becomes the state's notice. */
export function readMemory(place: MemoryPlace, scope: MemoryScope): MemoryState {
  const file = memoryFile(place, scope);
  const cap = memoryCap(place, scope);
  const state: MemoryState = { scope, file, cap, text: "", size: 0 };
  try {
    const { bytes, truncated } = readBoundedPrefix(file, { what: "memory file", maxBytes: cap, followSymlink: false });
    if (!truncated) {
      state.text = decode(file, bytes);
      state.size = bytes.length;
      return state;
    }
    const kept = prefixAtLineEnd(bytes);
    state.text = decode(file, kept);
    state.size = sizeOf(file) ?? cap + 1;
    state.notice = `memory file ${file} is ${state.size} bytes, over its cap of ${cap} (${capKey(scope)}): sessions use only its first ${kept.length} bytes; shorten it with \`scv memory edit${scope === "project" ? " --project" : ""}\``;
  } catch (e) {
    if (!(e instanceof SafeReadError)) throw e;
    if (e.reason !== "missing") state.notice = `${e.message}; sessions go on without it`;
    state.text = "";
  }
  return state;
}

function sizeOf(file: string): number | undefined {
  try {
    return lstatSync(file).size;
  } catch {
    return undefined;
  }
}

/** The whole file as text for an edit ("" when missing); throws SafeReadError when it cannot be used. */
export function readMemoryWhole(place: Pick<MemoryPlace, "home" | "workspace">, scope: MemoryScope): string {
  const file = memoryFile(place, scope);
  try {
    return decode(file, readBoundedBytes(file, { what: "memory file", maxBytes: MEMORY_READ_MAX, followSymlink: false }));
  } catch (e) {
    if (e instanceof SafeReadError && e.reason === "missing") return "";
    throw e;
  }
}

/** A write that would pass the cap; the message says how much room is left. */
export class MemoryFullError extends Error {
  constructor(
    readonly scope: MemoryScope,
    readonly cap: number,
    readonly current: number,
    readonly wanted: number,
  ) {
    const room = Math.max(0, cap - current);
    super(
      `${fileTitle(scope)} would be ${wanted} bytes, over its cap of ${cap} bytes (${capKey(scope)}); it holds ${current} bytes, so ${room} bytes are left. ` +
        `Consolidate first: replace notes that can be merged or said shorter, remove ones that are outdated, then try again.`,
    );
    this.name = "MemoryFullError";
  }
}

/**
 * What an edit would make of the file, without writing: `edit` gets the current text and returns the new one
 * (or throws to refuse). The cap is checked here: the result must fit it, or (for a file already over it by
 * hand) be smaller.
 */
export function planMemoryEdit(place: MemoryPlace, scope: MemoryScope, edit: (current: string) => string): { before: string; after: string } {
  const before = readMemoryWhole(place, scope);
  const after = edit(before);
  const size = Buffer.byteLength(after);
  const was = Buffer.byteLength(before);
  const cap = memoryCap(place, scope);
  if (size > cap && size >= was) throw new MemoryFullError(scope, cap, was, size);
  return { before, after };
}

/**
 * Changes a memory file (see planMemoryEdit): the cap is enforced on every write. Two processes editing at once:
 * the file is read again just before the rename and the edit redone on the newer text if it changed, so neither
 * edit is lost. Returns the text before and after.
 */
export function updateMemory(place: MemoryPlace, scope: MemoryScope, edit: (current: string) => string): { before: string; after: string; file: string } {
  const file = memoryFile(place, scope);
  for (let attempt = 0; ; attempt++) {
    const { before, after } = planMemoryEdit(place, scope, edit);
    if (readMemoryWhole(place, scope) !== before && attempt < 3) continue;
    ensurePrivateDir(memoryDir(place.home));
    if (scope === "project") ensurePrivateDir(join(memoryDir(place.home), "projects"));
    if (after === "") tryUnlink(file);
    else writePrivateFileAtomic(file, after);
    return { before, after, file };
  }
}

/** Removes a memory file; false when there was none. */
export function clearMemory(place: Pick<MemoryPlace, "home" | "workspace">, scope: MemoryScope): boolean {
  return tryUnlink(memoryFile(place, scope));
}
