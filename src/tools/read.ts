// The `read` tool: a byte range of a workspace file as UTF-8 text, with its total length and whether more follows.
import * as fs from "node:fs";
import { sha256Hex } from "../digest";
import * as path from "node:path";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { ToolError } from "../errors";
import { type SessionScope, type ToolRisk } from "../scope";
import { defineTool, type Tool, type ToolCallContext, type ToolResult } from "./tool";
import { assertOpenedInside, displayPath as display, isSecretLikePath, resolveInWorkspace, WorkspacePath } from "../fs/workspace-paths";
import { imageRef, type ImageRef, sniffImage } from "../provider/images";

export const ReadArgs = lazySchema((z) => z.strictObject({
  path: WorkspacePath,
  offset: z
    .number()
    .int("must be a whole number of bytes")
    .min(0, "must be 0 or more")
    .optional()
    .describe("Default 0"),
  limit: z
    .number()
    .int("must be a whole number of bytes")
    .min(0, "must be 0 or more")
    .optional()
    .describe("Default: the output limit"),
}));
type ReadArgs = z.infer<typeof ReadArgs>;

export function createReadTool(_scope: SessionScope): Tool {
  return defineTool({
    name: "read",
    kind: "read",
    description:
      "Read a UTF-8 workspace file (offset, limit in bytes). The first line gives the byte range, total length and " +
      "whether more follows; a whole file comes with its sha256. Shows images if your model takes them.",
    parameters: ReadArgs,
    risk: (args, ctx) => readRisk(args, ctx),
    summary: (args, ctx) => {
      const plan = planRead(args, ctx);
      const image = imageTypeOf(plan.real);
      if (image) return `read ${display(args.path)} (${image} image, ${plan.total} bytes)`;
      return `read ${display(args.path)} (bytes ${plan.start}-${plan.end})`;
    },
    execute: (args, ctx) => readFile(args, ctx),
  });
}

/** Workspace reads are read_only; a secret-like name (as given, or of the file a symlink leads to) needs approval. */
function readRisk(args: ReadArgs, ctx: ToolCallContext): ToolRisk {
  const real = resolveInWorkspace(ctx.workspace, args.path);
  const relReal = path.relative(fs.realpathSync(ctx.workspace), real);
  return isSecretLikePath(args.path) || isSecretLikePath(relReal) ? "filesystem" : "read_only";
}

interface ReadPlan {
  real: string;
  total: number;
  start: number;
  /** End (exclusive) before any adjustment to a character boundary. */
  end: number;
  /** The model chose `end` with its own limit (a split character is then its error, not ours to fix). */
  endChosenByModel: boolean;
  capped: boolean;
}

/** Resolves the path, refuses what is not a readable regular file, and picks the byte range. Runs before approval. */
function planRead(args: ReadArgs, ctx: ToolCallContext): ReadPlan {
  const real = resolveInWorkspace(ctx.workspace, args.path);
  const st = fs.statSync(real);
  refuseNonRegular(st, args.path);
  return rangeFor(args, ctx, real, st.size);
}

function rangeFor(args: ReadArgs, ctx: ToolCallContext, real: string, total: number): ReadPlan {
  const start = args.offset ?? 0;
  if (start > total) {
    throw new ToolError(`offset ${start} is past the end of ${display(args.path)}, which is ${total} bytes long; use an offset from 0 to ${total}`);
  }
  const budget = readBudget(ctx.outputLimitBytes, args.path, total);
  const wanted = args.limit ?? budget;
  const capped = wanted > budget;
  const end = Math.min(start + Math.min(wanted, budget), total);
  return { real, total, start, end, endChosenByModel: args.limit !== undefined && !capped && end < total, capped };
}

/** Bytes of content that fit in the output limit next to the header line (sized for the largest numbers). */
function readBudget(outputLimitBytes: number, requested: string, total: number): number {
  const header = headerLine(requested, { start: total, end: total, total, capped: true, sha256: "0".repeat(64) });
  return Math.max(1, outputLimitBytes - Buffer.byteLength(header) - 1);
}

async function readFile(args: ReadArgs, ctx: ToolCallContext): Promise<ToolResult> {
  const real = resolveInWorkspace(ctx.workspace, args.path);
  const editor = ctx.services.editorFiles;
  // An image is read from disk (the editor's text of it would be garbage); any other file as the editor has it.
  if (editor?.read && !imageTypeOf(real)) return readThroughEditor(args, ctx, real, editor.read);
  let fh: fs.promises.FileHandle;
  try {
    // O_NONBLOCK keeps a FIFO swapped in after the check from blocking the open; fstat below refuses it.
    fh = await fs.promises.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    throw openError(e, args.path);
  }
  try {
    assertOpenedInside(fh.fd, ctx.workspace, args.path);
    const st = await fh.stat();
    refuseNonRegular(st, args.path);
    const head = Buffer.alloc(16);
    await fh.read(head, 0, 16, 0);
    const image = sniffImage(head);
    if (image) return readImage(args.path, real, image, ctx);
    const plan = rangeFor(args, ctx, real, st.size);
    // Up to 3 bytes before the range let an error name where a split character begins.
    const before = Math.min(3, plan.start);
    const buf = Buffer.alloc(before + (plan.end - plan.start));
    const { bytesRead } = await fh.read(buf, 0, buf.length, plan.start - before);
    return readResult(args, plan, buf.subarray(0, bytesRead), before);
  } finally {
    await fh.close();
  }
}

/** An image file goes to a model that takes images as an image; otherwise the refusal says why and what to change. */
function readImage(requested: string, real: string, mime: string, ctx: ToolCallContext): ToolResult {
  if (!ctx.images?.accepted) {
    throw new ToolError(`${display(requested)} is an image (${mime}), which read cannot show as text: ${ctx.images?.reason ?? "this session's model does not take images"}`);
  }
  let ref: ImageRef;
  try {
    ref = imageRef(real);
  } catch (e) {
    throw new ToolError((e as Error).message.replace(JSON.stringify(real), display(requested)));
  }
  return {
    ok: true,
    output: `[read ${display(requested)}: ${mime} image, ${ref.bytes} bytes; the image follows the tool results]`,
    event: { path: requested, image: mime, total: ref.bytes },
    display: `${mime} image`,
    images: [ref],
  };
}

/** The image type of a file from its first bytes, or undefined (also when it cannot be read). */
function imageTypeOf(real: string): string | undefined {
  try {
    const fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      const head = Buffer.alloc(16);
      fs.readSync(fd, head, 0, 16, 0);
      return sniffImage(head);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The file as the editor has it (an unsaved buffer included), after the same path checks as a read from disk. */
async function readThroughEditor(args: ReadArgs, ctx: ToolCallContext, real: string, read: (path: string) => Promise<string>): Promise<ToolResult> {
  let st: fs.Stats;
  try {
    st = fs.statSync(real);
  } catch (e) {
    throw openError(e, args.path);
  }
  refuseNonRegular(st, args.path);
  let text: string;
  try {
    text = await read(real);
  } catch (e) {
    throw new ToolError(`the editor could not read ${display(args.path)}: ${(e as Error).message}`);
  }
  const all = Buffer.from(text, "utf8");
  const plan = rangeFor(args, ctx, real, all.length);
  const before = Math.min(3, plan.start);
  return readResult(args, plan, all.subarray(plan.start - before, plan.end), before);
}

/** The read's result from the bytes of its range, preceded by up to 3 bytes (`before`) for error messages. */
function readResult(args: ReadArgs, plan: ReadPlan, window: Buffer, before: number): ToolResult {
  const selected = window.subarray(before, Math.min(before + plan.end - plan.start, window.length));
  const text = decodeSelection(selected, window, before, plan, args.path);
  const end = plan.start + Buffer.byteLength(text);
  const whole = plan.start === 0 && end === plan.total;
  const sha256 = whole ? sha256Hex(selected) : undefined;
  const header = headerLine(args.path, { start: plan.start, end, total: plan.total, capped: plan.capped, sha256 });
  return {
    ok: true,
    output: `${header}\n${text}`,
    // A person reads the text; the header (offsets, sha256) is for the model's next read or write.
    preview: text,
    event: { path: args.path, offset: plan.start, end, total: plan.total, truncated: end < plan.total, ...(sha256 ? { sha256 } : {}) },
  };
}

function headerLine(requested: string, r: { start: number; end: number; total: number; capped: boolean; sha256?: string }): string {
  const truncated = r.end < r.total;
  let line = `[read ${display(requested)}: bytes ${r.start}-${r.end} of ${r.total}, truncated=${truncated}`;
  if (truncated) line += `; continue with offset=${r.end}`;
  if (truncated && r.capped) line += ` (limit capped to fit tools.output_limit_bytes)`;
  if (r.sha256) line += `; sha256=${r.sha256}`;
  return `${line}]`;
}

/**
 * The selected bytes as text, or a ToolError naming the first bad byte's file offset and a range that would work.
 * When the server picked the end (default or capped limit) and it splits a character, the end moves back to it.
 */
function decodeSelection(selected: Buffer, window: Buffer, before: number, plan: ReadPlan, requested: string): string {
  const problem = findUtf8Problem(selected);
  if (!problem) return selected.toString("utf8");
  const at = plan.start + problem.index;
  const cutByServer = problem.incomplete && !plan.endChosenByModel && plan.start + selected.length < plan.total;
  if (cutByServer && problem.index > 0) return selected.subarray(0, problem.index).toString("utf8");
  const where = `${display(requested)} bytes ${plan.start}-${plan.start + selected.length} are not valid UTF-8`;
  if (problem.index === 0 && isContinuation(selected[0]!) && plan.start > 0) {
    let lead = before - 1;
    while (lead >= 0 && isContinuation(window[lead]!)) lead--;
    let skip = 0;
    while (skip < selected.length && skip < 3 && isContinuation(selected[skip]!)) skip++;
    const options: string[] = [];
    if (lead >= 0 && window[lead]! >= 0xc0) options.push(`offset ${plan.start - (before - lead)} (where that character begins)`);
    options.push(`offset ${plan.start + skip} (after it)`);
    throw new ToolError(`${where}: offset ${plan.start} falls inside a multi-byte character; start at ${options.join(" or ")}.`);
  }
  if (problem.incomplete && plan.endChosenByModel) {
    const len = problem.index;
    const full = len + sequenceLength(selected[problem.index]!);
    throw new ToolError(
      `${where}: the range ends inside a multi-byte character that starts at file offset ${at}; use limit ${len} to stop before it or ${full} to include it.`,
    );
  }
  const before_ = problem.index > 0 ? `a range that ends before it (offset ${plan.start}, limit ${problem.index})` : "";
  if (problem.incomplete) {
    throw new ToolError(`${where}: the file ends inside a multi-byte character that starts at file offset ${at}; ${before_ ? `read ${before_}` : "there is no text to read there"}.`);
  }
  const byte = `0x${selected[problem.index]!.toString(16).padStart(2, "0")}`;
  const after = `a range that starts after it (offset ${at + 1} or later)`;
  throw new ToolError(
    `${where}: byte ${byte} at file offset ${at} cannot be decoded (the file may be binary or in another encoding). ` +
      `read returns UTF-8 text only; read ${before_ ? `${before_} or ${after}` : after}.`,
  );
}

function isContinuation(b: number): boolean {
  return (b & 0xc0) === 0x80;
}

function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/** The first ill-formed sequence (index of its first byte), and whether it is merely cut off by the end. */
export function findUtf8Problem(b: Uint8Array): { index: number; incomplete: boolean } | undefined {
  try {
    strictDecoder.decode(b);
    return undefined; // the fast path: the native decoder agrees the bytes are well formed
  } catch {
    // fall through to find where
  }
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (need === 0) return { index: i, incomplete: false };
    // The second byte's range excludes overlong forms, surrogates and code points above U+10FFFF.
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= need; k++) {
      if (i + k >= b.length) return { index: i, incomplete: true };
      const d = b[i + k]!;
      if (d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return { index: i, incomplete: false };
    }
    i += need + 1;
  }
  return undefined;
}

function refuseNonRegular(st: fs.Stats, requested: string): void {
  if (st.isFile()) return;
  if (st.isDirectory()) throw new ToolError(`path ${JSON.stringify(requested)} is a directory; read takes a file path`);
  throw new ToolError(`path ${JSON.stringify(requested)} is not a regular file (it is a device, FIFO or socket); read takes a regular file`);
}

function openError(e: unknown, requested: string): ToolError {
  const code = (e as NodeJS.ErrnoException).code;
  const shown = JSON.stringify(requested);
  if (code === "ELOOP") return new ToolError(`path ${shown} changed to a symbolic link while being opened; refused, try again`);
  if (code === "ENOENT") return new ToolError(`path ${shown} does not exist in the workspace`);
  if (code === "EACCES" || code === "EPERM") return new ToolError(`path ${shown} is not readable: permission denied`);
  return new ToolError(`path ${shown} could not be opened: ${code ?? (e as Error).message}`);
}
