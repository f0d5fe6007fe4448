// The `edit` tool: exact-text replacements in a workspace file, applied in order, installed through the same
// atomic path as `write`. A one-line change costs the model the changed lines, not the whole file twice.
// Line endings and a byte-order mark are kept: in a file whose every line ends CRLF, the model's LF text
// matches and is written back CRLF.
import * as fs from "node:fs";
import type { z } from "zod";
import { redactSecrets } from "../text/redact";
import { sha256Hex } from "../digest";
import { lazySchema } from "../lazy-schema";
import { lstatOrUndefined, writeAtomically } from "./atomic-write";
import { findUtf8Problem } from "./read";
import { lineCounts, unifiedDiff } from "./line-diff";
import { ToolError } from "../errors";
import type { SessionScope } from "../scope";
import { defineTool, fileChange, type Tool, type ToolCallContext } from "./tool";
import { resolve } from "node:path";
import { assertOpenedInside, displayPath, resolveInWorkspace, WorkspacePath } from "../fs/workspace-paths";

const Sha256 = lazySchema((z) => z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hexadecimal digits: the sha256 of the file's current bytes"));
const Text = lazySchema((z) => z.string().refine((c) => c.isWellFormed(), "must be valid Unicode text (no unpaired surrogate)"));

export const EditArgs = lazySchema((z) => z.strictObject({
  path: WorkspacePath,
  edits: z
    .array(
      z.strictObject({
        old_text: Text.refine((t) => t !== "", "must not be empty; copy the exact text to replace from the file"),
        new_text: Text,
        replace_all: z.boolean().optional().describe("Every occurrence"),
      }),
    )
    .min(1, "give at least one edit")
    .max(100, "at most 100 edits per call")
    .describe("Applied in order"),
  expected_sha256: Sha256.optional(),
}));
type EditArgs = z.infer<typeof EditArgs>;

/** Files above this size are not edited (use write, or bash for generated files). */
export const EDIT_MAX_BYTES = 8 * 1024 * 1024;
const PREVIEW_LINES = 60;
const PREVIEW_CHARS = 200;
/** The unified diff an edit's result event carries for clients (ACP), bounded. */
const EVENT_DIFF_LINES = 400;
const MATCH_LINES_SHOWN = 10;

/** The file as it was read for an edit, and what the edits make of it. */
interface PlannedEdit {
  before: string;
  after: string;
  /** sha256 of the bytes read: the install requires the file to still have them. */
  sha256: string;
  data: Buffer;
}

export function createEditTool(scope: SessionScope): Tool {
  // What the approval showed, by the call's arguments object: the run installs exactly that or nothing.
  const approved = new WeakMap<EditArgs, PlannedEdit>();
  return defineTool({
    name: "edit",
    kind: "edit",
    description:
      "Replace exact text in a workspace file: each old_text, copied exactly from read, must occur once (or set " +
      "replace_all); edits apply in order, all or nothing. Prefer this to write for existing files.",
    parameters: EditArgs,
    risk: "filesystem",
    summary: async (args, ctx) => {
      const plan = await planEdit(args, ctx);
      approved.set(args, plan);
      const diff = unifiedDiff(plan.before, plan.after, { maxLines: PREVIEW_LINES, maxChars: PREVIEW_CHARS });
      const masked = diff.text.split("\n").map(redactSecrets).join("\n");
      return `edit ${displayPath(args.path)} ${lineCounts(diff.added, diff.removed)}:\n${masked}`;
    },
    label: (args) => `edit ${displayPath(args.path)}`,
    editsPath: (args) => args.path,
    change: (args, ctx) => {
      const plan = approved.get(args);
      return plan ? fileChange(resolve(ctx.workspace, args.path), plan.before, plan.after) : undefined;
    },
    execute: async (args, ctx) => {
      const plan = approved.get(args) ?? (await planEdit(args, ctx));
      await writeAtomically({
        workspace: ctx.workspace,
        scvHome: scope.scvHome,
        requested: args.path,
        data: plan.data,
        mode: "replace",
        expectedSha256: plan.sha256,
        staleAdvice: () => "Read it again and redo the edit against its current text.",
        signal: ctx.signal,
        editor: ctx.services.editorFiles,
      });
      const sha256 = sha256Hex(plan.data);
      const diff = unifiedDiff(plan.before, plan.after, { maxLines: EVENT_DIFF_LINES, maxChars: 1000 });
      const counts = lineCounts(diff.added, diff.removed);
      return {
        ok: true,
        output: `edited ${displayPath(args.path)}: ${counts}, sha256=${sha256}`,
        preview: `edited ${displayPath(args.path)}: ${counts}`,
        event: { path: args.path, sha256, previous_sha256: plan.sha256, added: diff.added, removed: diff.removed, diff: diff.text },
        display: counts,
      };
    },
  });
}

/** Reads the file and applies the edits in memory; a ToolError names the first problem (nothing is written). */
async function planEdit(args: EditArgs, ctx: ToolCallContext): Promise<PlannedEdit> {
  const editor = ctx.services.editorFiles;
  const { bytes, text } = editor?.read ? await readThroughEditor(args.path, ctx, editor.read) : readTextFile(args.path, ctx);
  const sha256 = sha256Hex(bytes);
  const expected = args.expected_sha256?.toLowerCase();
  if (expected && expected !== sha256) {
    throw new ToolError(
      `path ${JSON.stringify(args.path)} changed since you saw it: its sha256 is now ${sha256}, not the expected ${expected}. Nothing was written. Read it again and redo the edit against its current text.`,
    );
  }
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom ? text.slice(1) : text;
  // CRLF only when every line break is CRLF; a file mixing both is matched exactly as it is.
  const crlf = body.includes("\r\n") && !/(^|[^\r])\n/.test(body);
  let current = crlf ? body.replaceAll("\r\n", "\n") : body;
  const unify = (t: string) => (crlf ? t.replaceAll("\r\n", "\n") : t);
  args.edits.forEach((edit, i) => {
    const oldText = unify(edit.old_text);
    const newText = unify(edit.new_text);
    const which = args.edits.length > 1 ? `edits[${i}]` : "the edit";
    if (oldText === newText) throw new ToolError(`${which}: old_text and new_text are the same; nothing would change. Nothing was written.`);
    const at = occurrences(current, oldText);
    if (at.length === 0) throw new ToolError(`${which}: old_text was not found in ${displayPath(args.path)}${notFoundHint(current, oldText, i)}. Nothing was written.`);
    if (at.length > 1 && !edit.replace_all) {
      const lines = at.slice(0, MATCH_LINES_SHOWN).map((o) => lineOf(current, o));
      const more = at.length > lines.length ? ` and ${at.length - lines.length} more` : "";
      throw new ToolError(
        `${which}: old_text matches ${at.length} times in ${displayPath(args.path)} (at lines ${lines.join(", ")}${more}); include more surrounding lines so it matches once, or set replace_all. Nothing was written.`,
      );
    }
    current = edit.replace_all ? current.replaceAll(oldText, () => newText) : spliceAt(current, at[0]!, oldText.length, newText);
  });
  const after = bom + (crlf ? current.replaceAll("\n", "\r\n") : current);
  // Diffs are shown on LF text, so a CRLF file's lines carry no stray carriage returns.
  return { before: crlf ? body.replaceAll("\r\n", "\n") : body, after: current, sha256, data: Buffer.from(after, "utf8") };
}

function spliceAt(text: string, at: number, length: number, replacement: string): string {
  return text.slice(0, at) + replacement + text.slice(at + length);
}

function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) out.push(at);
  return out;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Where the text nearly matches (differing only in spacing), so the model can copy it exactly. */
function notFoundHint(text: string, oldText: string, index: number): string {
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  const firstLine = squash(oldText.split("\n").find((l) => l.trim() !== "") ?? "");
  if (!firstLine) return "";
  const lines = text.split("\n");
  const near = lines.flatMap((l, i) => (squash(l).includes(firstLine) ? [i + 1] : [])).slice(0, MATCH_LINES_SHOWN);
  const earlier = index > 0 ? " (after the edits before it)" : "";
  if (near.length) return `${earlier}; its first line appears, with different spacing or following lines, at line ${near.join(", ")}: read those lines and copy them exactly`;
  return `${earlier}; read the file and copy the text exactly, including indentation`;
}

/** The file as the editor has it (an unsaved buffer included), after the same path checks as a read from disk. */
async function readThroughEditor(requested: string, ctx: ToolCallContext, read: (path: string) => Promise<string>): Promise<{ bytes: Buffer; text: string }> {
  const real = resolveInWorkspace(ctx.workspace, requested);
  const shown = JSON.stringify(requested);
  const st = lstatOrUndefined(real);
  if (!st) throw new ToolError(`path ${shown} does not exist in the workspace`);
  if (!st.isFile()) throw new ToolError(`path ${shown} is not a regular file; edit changes regular files only`);
  let text: string;
  try {
    text = await read(real);
  } catch (e) {
    throw new ToolError(`the editor could not read ${shown}: ${(e as Error).message}`);
  }
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > EDIT_MAX_BYTES) throw new ToolError(`path ${shown} is ${bytes.length} bytes, over edit's limit of ${EDIT_MAX_BYTES}; change it another way`);
  return { bytes, text };
}

/** The whole file as UTF-8 text, refusing what edit cannot change safely. */
function readTextFile(requested: string, ctx: ToolCallContext): { bytes: Buffer; text: string } {
  const real = resolveInWorkspace(ctx.workspace, requested);
  const shown = JSON.stringify(requested);
  let fd: number;
  try {
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new ToolError(`path ${shown} changed to a symbolic link while being opened; refused`);
    throw new ToolError(`path ${shown} could not be opened: ${code ?? (e as Error).message}`);
  }
  try {
    assertOpenedInside(fd, ctx.workspace, requested);
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) throw new ToolError(`path ${shown} is a directory; edit takes a file`);
    if (!st.isFile()) throw new ToolError(`path ${shown} is not a regular file; edit changes regular files only`);
    if (st.size > EDIT_MAX_BYTES) throw new ToolError(`path ${shown} is ${st.size} bytes, over edit's limit of ${EDIT_MAX_BYTES}; change it another way`);
    const bytes = Buffer.alloc(st.size);
    const n = fs.readSync(fd, bytes, 0, st.size, 0);
    const got = bytes.subarray(0, n);
    const bad = got.includes(0) ? { index: got.indexOf(0) } : findUtf8Problem(got);
    if (bad) throw new ToolError(`path ${shown} is not UTF-8 text (byte offset ${bad.index}); edit changes text files only`);
    return { bytes: got, text: got.toString("utf8") };
  } finally {
    fs.closeSync(fd);
  }
}
