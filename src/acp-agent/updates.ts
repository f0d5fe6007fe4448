// SCV's protocol events as ACP `session/update`s: what each tool call is (kind, title, the files it touches),
// what it changed (a diff for a file edit) or printed (a console block for a command), and how a turn ended.
// Tool-agnostic: a tool says its kind (tool.started `kind`, else judged by its risk) and a file tool names its
// file in a `path` argument.
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { NotificationParams, RequestResult } from "../protocol/schema";
import { ACP_ERRORS, AcpError } from "./rpc";

/** Files larger than this are not read for a diff: the editor gets the tool's own outcome instead. */
const MAX_DIFF_BYTES = 512 * 1024;

const KIND_BY_RISK: Record<string, string> = { read_only: "read", filesystem: "edit", process: "execute", network: "fetch", delegate: "other" };

export function toolKind(p: { kind?: string; risk?: string }): string {
  return p.kind ?? KIND_BY_RISK[p.risk ?? ""] ?? "other";
}

/** The file a call names in its `path` argument, as an absolute path in the workspace. */
export function toolPath(workspace: string, args: Record<string, unknown> | undefined): string | undefined {
  const path = args?.path;
  if (typeof path !== "string" || path === "" || path.includes("…")) return undefined;
  return isAbsolute(path) ? path : join(workspace, path);
}

/** A file's text for a diff: undefined when it does not exist (a new file), null when it cannot be shown. */
export function fileTextForDiff(path: string): string | undefined | null {
  try {
    if (statSync(path).size > MAX_DIFF_BYTES) return null;
    return readFileSync(path, "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? undefined : null;
  }
}

/** A JSON value with `mask` run over its text (the scrubber knows JSON-escaped keys); unreadable after it: its text. */
function maskedJson(value: unknown, mask: (text: string) => string): unknown {
  const text = mask(JSON.stringify(value));
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function textContent(text: string) {
  return { type: "content", content: { type: "text", text } };
}

/** Output as a console block, fenced longer than any backtick run inside it. */
export function consoleBlock(output: string): string {
  const longest = Math.max(2, ...[...output.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}console\n${output.replace(/\n$/, "")}\n${fence}`;
}

/** The update that opens a tool call; its arguments (a write's content) pass through `mask` too. */
export function toolCallStarted(workspace: string, p: NotificationParams<"tool.started">, mask: (text: string) => string): Record<string, unknown> {
  const path = toolPath(workspace, p.arguments);
  return {
    sessionUpdate: "tool_call",
    toolCallId: p.call_id,
    title: p.label,
    kind: toolKind(p),
    status: "pending",
    ...(p.arguments ? { rawInput: maskedJson(p.arguments, mask) } : {}),
    ...(path ? { locations: [{ path }] } : {}),
  };
}

/**
 * What a finished call shows: the file's diff for an edit, a console block for a command, else its output. The
 * file texts are read from disk (or are what went through the editor), so `mask` (the session's key scrubber)
 * runs over them and over the output: a key in a file is never sent to the editor raw.
 */
export function toolCallFinished(
  p: NotificationParams<"tool.completed">,
  shown: { kind: string; path?: string; before?: string | null; after?: string },
  mask: (text: string) => string,
): Record<string, unknown> {
  const content: unknown[] = [];
  if (p.ok && shown.kind === "edit" && shown.path && shown.before !== null) {
    // What the call wrote through the editor, else the file on disk now.
    const after = shown.after ?? fileTextForDiff(shown.path);
    if (typeof after === "string") content.push({ type: "diff", path: shown.path, oldText: shown.before === undefined ? null : mask(shown.before), newText: mask(after) });
  }
  const output = p.output ? mask(p.output) : p.output;
  if (content.length === 0 && output) content.push(textContent(shown.kind === "execute" ? consoleBlock(output) : output));
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: p.call_id,
    status: p.ok ? "completed" : "failed",
    content,
    rawOutput: { output, ...(p.display ? { display: p.display } : {}), ...(p.denied ? { denied: true } : {}) },
  };
}

/** A stored call (session.resume `turns[].calls`) as one finished tool call: its diff, else its output in short. */
export function replayedCall(workspace: string, id: string, call: RequestResult<"session.resume">["turns"][number]["calls"] extends (infer C)[] | undefined ? C : never, mask: (text: string) => string): Record<string, unknown> {
  const path = toolPath(workspace, call.path ? { path: call.path } : undefined);
  const content: unknown[] = [];
  // Stored records are scrubbed when written; masked again here with today's keys (a key configured since).
  if (call.diff && path) content.push({ type: "diff", path, ...hunkTexts(mask(call.diff)) });
  else if (call.output) content.push(textContent(call.kind === "execute" ? consoleBlock(mask(call.output)) : mask(call.output)));
  return {
    sessionUpdate: "tool_call",
    toolCallId: id,
    title: call.display ? `${call.label} (${call.display})` : call.label,
    kind: call.kind ?? "other",
    status: call.ok ? "completed" : "failed",
    content,
    ...(path ? { locations: [{ path }] } : {}),
  };
}

/** A unified diff's hunks as the two texts they show (context and removed lines; context and added lines). */
export function hunkTexts(diff: string): { oldText: string; newText: string } {
  const old: string[] = [];
  const now: string[] = [];
  for (const line of diff.split("\n")) {
    if (line.startsWith("@@")) {
      if (old.length || now.length) (old.push("⋮"), now.push("⋮"));
    } else if (line.startsWith("-")) old.push(line.slice(1));
    else if (line.startsWith("+")) now.push(line.slice(1));
    else if (line.startsWith(" ")) (old.push(line.slice(1)), now.push(line.slice(1)));
    else if (line) (old.push(line), now.push(line)); // "… N more diff lines not shown"
  }
  return { oldText: old.join("\n"), newText: now.join("\n") };
}

const PLAN_STATUS: Record<string, string> = { pending: "pending", in_progress: "in_progress", done: "completed" };

/** The model's task list (the `plan` tool) as ACP's plan, which always carries every entry. */
export function planUpdate(items: NotificationParams<"plan.updated">["items"]): Record<string, unknown> {
  return { sessionUpdate: "plan", entries: items.map((i) => ({ content: i.text, priority: "medium", status: PLAN_STATUS[i.status] ?? "pending" })) };
}

/** ACP's stop reason for how a turn ended; a failure other than the step limit is an error reply. */
export function stopReasonOf(p: NotificationParams<"turn.ended">): string {
  if (p.status === "cancelled") return "cancelled";
  if (p.refusal) return "refusal";
  if (p.incomplete_reason === "max_output_tokens") return "max_tokens";
  if (p.incomplete_reason === "content_filter") return "refusal";
  if (p.status === "failed") {
    if (p.error?.class === "step_limit") return "max_turn_requests";
    throw new AcpError(ACP_ERRORS.internal_error, `the turn failed: ${p.error?.message ?? "unknown error"}`, { class: p.error?.class, reply: p.reply });
  }
  return "end_turn";
}
