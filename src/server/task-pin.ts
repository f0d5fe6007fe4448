// What every compaction's summary carries word for word, whatever the summariser writes: the person's task (their
// first prompt and later instructions, verbatim where short), the active goal and its check, the plan and the
// files changed so far. The complaint this answers: an agent that forgets its task at compaction.
import { planLines, type PlanItem } from "../plan/plan";
import type { HistoryItem } from "../provider/types";
import type { LoadedSession } from "../sessions/index";
import { PINNED_END, PINNED_START } from "./compaction";
import type { Emit } from "./turn";

/** The first prompt is kept whole up to this many characters, each later one up to LATER_CHARS; the newest LATER_KEPT. */
const FIRST_CHARS = 4000;
const LATER_CHARS = 600;
const LATER_KEPT = 20;
const FILES_KEPT = 200;

export interface TaskState {
  /** The person's prompts, oldest first (turns of origin `user`). */
  prompts: readonly string[];
  goal?: { check: string; attempt: number; maxAttempts: number };
  plan: readonly PlanItem[];
  files: ReadonlySet<string>;
}

export function pinnedTask(t: TaskState): string | undefined {
  if (!t.prompts.length && !t.goal && !t.plan.length && !t.files.size) return undefined;
  const out = [PINNED_START];
  if (t.prompts.length) {
    out.push("The person's task, in their words (their first prompt, then later instructions, oldest first):");
    out.push(`1. ${clip(t.prompts[0]!, FIRST_CHARS)}`);
    const later = t.prompts.slice(1);
    if (later.length > LATER_KEPT) out.push(`[${later.length - LATER_KEPT} earlier instructions left out]`);
    later.slice(-LATER_KEPT).forEach((p, i) => out.push(`${later.length - Math.min(later.length, LATER_KEPT) + i + 2}. ${clip(p, LATER_CHARS)}`));
  }
  if (t.goal) out.push(`Active goal: keep working until the check \`${t.goal.check}\` passes; SCV runs it after each turn (attempt ${t.goal.attempt} of ${t.goal.maxAttempts} so far).`);
  if (t.plan.length) out.push("Plan:", ...planLines(t.plan));
  if (t.files.size) {
    const files = [...t.files];
    out.push(`Files changed so far: ${files.slice(-FILES_KEPT).join(", ")}${files.length > FILES_KEPT ? ` (and ${files.length - FILES_KEPT} more)` : ""}`);
  }
  out.push(PINNED_END);
  return out.join("\n");
}

/** The files an earlier pinned part listed (a resumed session's, whose calls were summarised away). */
export function filesInPinned(summary: string): string[] {
  if (!summary.startsWith(PINNED_START)) return [];
  const line = summary.slice(0, summary.indexOf(PINNED_END) >>> 0).split("\n").find((l) => l.startsWith("Files changed so far: "));
  return line ? line.slice("Files changed so far: ".length).replace(/ \(and \d+ more\)$/, "").split(", ").filter(Boolean) : [];
}

function clip(text: string, max: number): string {
  const one = text.trim();
  if (one.length <= max) return one;
  const head = Math.floor(max * 0.7);
  return `${one.slice(0, head)} […${one.length - max} characters cut…] ${one.slice(one.length - (max - head))}`;
}

/** What a session follows for its pinned part: the person's prompts and the files changed so far. */
export interface FollowedTask {
  prompts: string[];
  files: Set<string>;
}

/**
 * Fills `task` from a resumed session (its person's prompts, the files its history's edit and write calls and its
 * earlier pinned part name) and returns `emit` wrapped to add each file a call changes (tool.completed `path`).
 */
export function followTask(task: FollowedTask, history: readonly HistoryItem[], restored: LoadedSession | undefined, emit: Emit): Emit {
  for (const t of restored?.turns ?? []) if (t.origin.kind === "user") task.prompts.push(t.prompt);
  for (const item of history) {
    if (item.role === "summary") for (const f of filesInPinned(item.content)) task.files.add(f);
    if (item.role !== "assistant") continue;
    for (const call of item.toolCalls ?? []) {
      if (call.name !== "edit" && call.name !== "write") continue;
      try {
        const path = (JSON.parse(call.arguments) as { path?: unknown }).path;
        if (typeof path === "string") task.files.add(path);
      } catch {
        // arguments the model got wrong changed nothing
      }
    }
  }
  return (method, params) => {
    if (method === "tool.completed") {
      const p = params as { ok?: boolean; path?: unknown };
      if (p.ok && typeof p.path === "string") task.files.add(p.path);
    }
    emit(method, params);
  };
}
