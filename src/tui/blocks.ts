// How each piece of a conversation is drawn as lines: a prompt, a tool call's completion (its line, output preview
// or diff), a reasoning summary, the plan. Pure functions of what they are given; the conversation view
// (view.ts) keeps the state, the order and the scrollback, and what stays collapsed behind Ctrl-O.
import type { Style as Theme } from "../terminal/style";
import { sanitize, truncate, wrapLine, wrapText } from "./text";
import type { NotificationParams } from "../protocol/schema";
import { planLines, planProgress, type PlanItem } from "../plan/plan";
import { PASTE_COLLAPSE_CHARS, PASTE_COLLAPSE_LINES } from "./editor";
import { counted } from "../text/plural";

/** The lines of a long prompt shown before it is collapsed. */
const PROMPT_PREVIEW_LINES = 3;
/** The lines of a file change's diff kept in the scrollback before the rest is collapsed (Ctrl-O shows it). */
const DIFF_PREVIEW_LINES = 12;
/** Plan steps shown at most above the prompt (the first open step and those after it). */
const PLAN_LINES = 8;

/** What a block keeps behind Ctrl-O: its label and the whole text. */
export interface Collapsed {
  label: string;
  output: string;
}

/** Lines for the scrollback, and what of it stays collapsed (Ctrl-O shows it in full), if anything. */
export interface Block {
  lines: string[];
  collapsed?: Collapsed;
}

/** A diff line coloured as a person expects: additions green, removals red, hunk headers cyan. */
export function diffLine(t: Theme, l: string): string {
  if (/^@@ .* @@/.test(l)) return t.cyan(l);
  if (l.startsWith("+") && !l.startsWith("+++")) return t.green(l);
  if (l.startsWith("-") && !l.startsWith("---")) return t.red(l);
  return l;
}

export function firstLine(s: string): string {
  return s.split("\n").find((l) => l.trim()) ?? "";
}

export function lastLine(s: string): string {
  const lines = s.trim().split("\n");
  return sanitize(lines[lines.length - 1] ?? "");
}

export function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/**
 * A prompt as it was sent; a long one (a pasted log) stays collapsed to its first lines, live and in a replay,
 * and Ctrl-O shows it in full.
 */
export function promptBlock(prompt: string, t: Theme, width: number): Block {
  const all = wrapText(sanitize(prompt), width - 2);
  const long = prompt.split("\n").length > PASTE_COLLAPSE_LINES || prompt.length > PASTE_COLLAPSE_CHARS;
  const shown = long ? all.slice(0, PROMPT_PREVIEW_LINES) : all;
  const lines = shown.map((l, i) => t.bold(`${i === 0 ? "›" : " "} ${l}`));
  if (!long) return { lines };
  const lineCount = prompt.split("\n").length;
  lines.push(t.dim(`  … pasted text, ${lineCount} line${lineCount === 1 ? "" : "s"}, ${prompt.length} characters (Ctrl-O shows it)`));
  return { lines, collapsed: { label: "prompt", output: prompt } };
}

/** A reasoning summary, dimmed and folded to its first lines; it is never part of the reply. */
export function reasoningBlock(reasoning: string, t: Theme, width: number): string[] {
  const lines = sanitize(reasoning.trim()).split("\n").filter((l) => l.trim());
  const out = lines.slice(0, 3).flatMap((l) => wrapLine(l, width - 2)).map((l) => t.dim(t.italic(`  ${l}`)));
  if (lines.length > 3) out.push(t.dim(`  … ${lines.length - 3} more lines of reasoning`));
  return out;
}

/** What the view knew of a call while it ran, for its completion line. */
export interface CallSoFar {
  label: string;
  /** How long it ran (ms). */
  ranMs: number;
  /** How the person answered its approval. */
  outcome?: string;
}

/**
 * A tool call's completion: one line (its mark, label, and how it went), then a file change's diff or the first
 * lines of what the model got back. `cancelling`: the person asked to cancel, so a failure is the cancellation.
 */
export function completedToolBlock(p: NotificationParams<"tool.completed">, call: CallSoFar | undefined, t: Theme, width: number, cancelling: boolean): Block {
  const label = call?.label ?? sanitize(p.tool ?? "tool");
  // What the tool wrote for a person (an agent's reply) when the output is for the model (its JSON).
  const output = typeof p.preview === "string" ? p.preview : String(p.output ?? "");
  const denied = p.denied === true || (!p.ok && /^not run:/.test(String(p.output ?? "")));
  // The tool's own account of how the call went (`exit 0, 1.2 s`, `+12 -3 lines`) when it gives one.
  const detail = typeof p.display === "string" && p.display ? p.display : call ? elapsed(call.ranMs) : "";
  const mark = p.ok ? t.green("✓") : denied || cancelling ? t.yellow("⊘") : t.red("✗");
  const byHook = p.hook ? ` by ${sanitize(p.hook.event)} hook: ${sanitize(firstLine(p.hook.reason))}` : "";
  const status = p.ok ? "" : denied ? t.yellow(` denied${byHook}`) : cancelling ? t.yellow(" cancelled") : t.red(" failed");
  // A denial's why (the guard's refusal, the person's words) is said on the line itself.
  const why = denied && !byHook && typeof p.display === "string" && p.display;
  // How the person answered, when it says more than the mark does (a plain yes is the ✓, a denial the ⊘ and
  // its reason): "approved for this session", "approved and kept as a rule".
  const outcome = call?.outcome;
  const answered = outcome && outcome !== "approved" && outcome !== "denied" ? outcome : "";
  const said = [detail ? sanitize(detail) : "", answered].filter(Boolean).join(" · ");
  const lines = why ? wrapLine(`${mark} ${label} ${t.yellow(sanitize(why))}`, width) : [truncate(`${mark} ${label}${status}${said ? t.dim(` (${said})`) : ""}`, width)];
  if (typeof p.diff === "string" && p.diff && p.ok) {
    const diff = diffBlock(label, p.diff, t, width);
    return { lines: [...lines, ...diff.lines], collapsed: diff.collapsed };
  }
  // A short preview of what the model got back: its first lines.
  const shownLines = denied ? [] : output.split("\n").filter((l) => l.trim());
  // `exit 0` first in a command's output is already on the call's line (`exit 0, 0.6 s`).
  if (shownLines.length && detail && detail.startsWith(`${shownLines[0]!.trim()},`)) shownLines.shift();
  if (shownLines.length === 1 && shownLines[0] === "[no output]") shownLines.shift(); // the call's line says it all
  const preview = shownLines.slice(0, 3);
  const hidden = shownLines.length - preview.length;
  preview.forEach((line, i) => {
    const more = i === preview.length - 1 && hidden > 0 ? t.dim(` (+${counted(hidden, "line")}, Ctrl-O)`) : "";
    lines.push(truncate(`  ${t.dim(i === 0 ? "└" : " ")} ${sanitize(line)}`, width - (more ? 20 : 0)) + more);
  });
  return { lines, collapsed: { label, output } };
}

/** A file change stays in the scrollback as its diff: the first lines, the rest behind Ctrl-O. */
function diffBlock(label: string, diff: string, t: Theme, width: number): Required<Block> {
  const all = diff.split("\n");
  const shown = all.slice(0, DIFF_PREVIEW_LINES);
  const lines = shown.map((l) => truncate(`    ${diffLine(t, sanitize(l))}`, width));
  const hidden = all.length - shown.length;
  if (hidden > 0) lines.push(t.dim(`    … ${counted(hidden, "more line")} (Ctrl-O shows the whole diff)`));
  return { lines, collapsed: { label, output: diff } };
}

/** The plan while any step is open: done steps dimmed, the current one bold; long plans keep the open steps. */
export function planBlock(items: readonly PlanItem[], t: Theme, w: number): string[] {
  if (!items.length || items.every((i) => i.status === "done")) return [];
  const lines = planLines(items).map((l, i) => {
    const status = items[i]!.status;
    const text = truncate(`  ${sanitize(l)}`, w);
    return status === "done" ? t.dim(text) : status === "in_progress" ? t.bold(text) : text;
  });
  const firstOpen = Math.max(0, items.findIndex((i) => i.status !== "done"));
  const from = Math.max(0, Math.min(firstOpen, lines.length - PLAN_LINES));
  const shown = lines.slice(from, from + PLAN_LINES);
  return [t.cyan(truncate(`plan · ${planProgress(items)}`, w)), ...shown];
}
