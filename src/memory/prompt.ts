// Memory in an owner session's instructions: both files as the session starts (and again after each compaction),
// the compaction prompt's note that memory is kept apart from the summary, and the one save step before it.
import { redactSecrets } from "../text/redact";
import { secretIn } from "../text/scrub";
import { type MemoryPlace, type MemoryState, readMemory } from "./files";

export interface MemorySnapshot {
  user: MemoryState;
  project: MemoryState;
}

/**
 * Both files as sessions use them. With `secrets` (the configured ones), a file is judged by the limits a write
 * through SCV meets: one that holds a key-like value or a configured secret in any form (edited by hand, or
 * written by something else) is left out of the session, with a notice saying why and how to fix it.
 */
export function readSnapshot(place: MemoryPlace, secrets?: readonly string[]): MemorySnapshot {
  const judge = (state: MemoryState): MemoryState => {
    const found = secrets && state.text ? secretIn(state.text, secrets) : undefined;
    if (!found) return state;
    return { ...state, text: "", notice: `memory file ${state.file} holds what looks like ${found}, which memory never sends to the model: sessions go on without it until the secret is removed (\`scv memory edit${state.scope === "project" ? " --project" : ""}\`)` };
  };
  return { user: judge(readMemory(place, "user")), project: judge(readMemory(place, "project")) };
}

/** What the owner should be told about the files (over the cap, unreadable), one line each. */
export function snapshotNotices(snap: MemorySnapshot): string[] {
  return [snap.user.notice, snap.project.notice].filter((n): n is string => !!n);
}

export function formatBytes(n: number): string {
  return n < 1024 ? `${n} bytes` : `${(n / 1024).toFixed(1)} KiB`;
}

/** A file's size against its cap, as /status and `scv memory show` say it: `1.2 KiB of 4.0 KiB`. */
export function usageLine(state: MemoryState): string {
  if (state.notice && !state.text) return "not used (see the notice)";
  if (!state.size) return `empty (cap ${formatBytes(state.cap)})`;
  return `${formatBytes(state.size)} of ${formatBytes(state.cap)}${state.size > state.cap ? ", over its cap" : ""}`;
}

/**
 * The instructions section, or undefined when there is nothing to say (no notes, and no tool to save any).
 * `writable`: the session offers the memory tool.
 */
export function memorySection(snap: MemorySnapshot, workspace: string, writable: boolean): string | undefined {
  const { user, project } = snap;
  const empty = !user.text.trim() && !project.text.trim() && !user.notice && !project.notice;
  if (empty && !writable) return undefined;
  if (empty) {
    return "# Memory\nNo notes about the user or this project are saved yet. With the memory tool, save what the user will want remembered later (a preference, a standing instruction, a project decision); never secrets.";
  }
  const lines = [
    "# Memory",
    "Notes about the user and this project, kept across sessions in plain files the user can read and edit. They were written by the user or by you in earlier sessions: rely on them, and prefer what the user says now when it differs.",
  ];
  if (writable) {
    lines.push(
      "Keep them current with the memory tool: save what the user will want remembered next time (a preference, a correction, a standing instruction, a decision about this project), replace or remove notes that are outdated, and keep each note short. Do not save secrets, passwords or keys, or details that only matter to the task at hand. Notes you save now are shown here from the next session on.",
    );
  }
  lines.push(block("About the user (USER.md)", user), block(`About this project (${workspace})`, project));
  return lines.join("\n\n");
}

function block(title: string, state: MemoryState): string {
  const head = `## ${title}: ${usageLine(state)}`;
  const notice = state.notice ? `\n[${state.notice}]` : "";
  const text = state.text.trim();
  return `${head}${notice}\n${text || "(no notes yet)"}`;
}

/** Told to the summariser, so the summary neither repeats memory nor drops what it holds. */
export function compactionMemoryNote(snap: MemorySnapshot): string {
  const held = [snap.user.text.trim() && `USER.md:\n${snap.user.text.trim()}`, snap.project.text.trim() && `Project notes:\n${snap.project.text.trim()}`].filter(Boolean);
  return [
    "SCV keeps memory files (notes about the user and this project) in its instructions; they stay there after compaction, so the summary need not repeat them.",
    held.length ? `They hold now:\n\n${held.join("\n\n")}` : "They are empty now.",
  ].join("\n");
}

/** The save step's request: the model may call `memory` before older turns are summarised, or answer without. */
export const SAVE_STEP_PROMPT =
  "[SCV, not the user] The older part of this conversation is about to be summarised to free context. If it holds something the user will want remembered in later sessions (a preference, a fact about them, a correction, a decision about this project) that memory does not hold yet, save it now with the memory tool, in a few short notes. If there is nothing to add, answer only: nothing to save.";

/** Calls the save step may make; more are answered as not run. */
export const SAVE_STEP_MAX_CALLS = 4;

/**
 * Both files for the owner to read (TUI and chat `/memory`): each with its size, cap, path and text, with
 * credential-looking values masked (a chat platform is not the place for a key the owner typed into the file).
 */
export function memoryReport(snap: MemorySnapshot, workspace: string): string {
  const part = (title: string, state: MemoryState) => {
    const head = `${title}: ${usageLine(state)} · ${state.file}`;
    const notice = state.notice ? `\n(${state.notice})` : "";
    const text = state.text.trim().split("\n").map(redactSecrets).join("\n");
    return `${head}${notice}${text ? `\n${text}` : ""}`;
  };
  return [part("USER.md", snap.user), part(`Project notes for ${workspace}`, snap.project)].join("\n\n");
}

/** One line for /status: both files' sizes against their caps. */
export function memoryStatusLine(snap: MemorySnapshot): string {
  return `memory: USER.md ${usageLine(snap.user)}; project notes ${usageLine(snap.project)}`;
}
