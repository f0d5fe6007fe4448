// Context management: keeping a long session inside the model's context window. Requests carry a view of the
// history in which tool outputs from earlier turns are cut to a head and tail (they were seen in full when
// their call ran). When the next request would pass `compact_at` of the window, or the endpoint answers
// context_length_exceeded, `compactHistory` has the model summarise the older part of the session and
// replaces it with that summary; the most recent turns stay verbatim. It is the only place that replaces
// history items; everything else only appends.
import { describeImage, type ImageRef, releaseImages } from "../provider/images";
import type { HistoryItem, ModelClient, ModelFailure, ToolCallRequest, Usage } from "../provider/types";
import { ellipsizeAfter } from "../text/cut";

export type SummaryItem = Extract<HistoryItem, { role: "summary" }>;

/** What a session knows about the size of its requests. */
export interface ContextState {
  /** Tokens a request may carry (profile `context_window`, or the model family's). */
  window: number;
  /** Compact before a request estimated above this fraction of the window. */
  compactAt: number;
  /** The input tokens the last response reported, and the history view that request carried. */
  last?: { inputTokens: number; view: readonly HistoryItem[] };
  /** The endpoint said the context overflowed and compaction did not fix it: compact before the next request. */
  overflowed?: boolean;
}

export type CompactionReason = "threshold" | "overflow" | "request";

export type CompactResult = (
  | { ok: true; summary: SummaryItem; replaced: HistoryItem[]; turns: number; tokensBefore: number; tokensAfter: number }
  | { ok: false; message: string; failure?: ModelFailure; cancelled?: boolean }
) & { /** What the summary request used, when one was sent. */ usage?: Usage };

/** A seen tool output longer than this many characters is cut to its head and tail in requests. */
export const SEEN_OUTPUT_KEEP = 4096;
const HEAD = 2560;
/** Recent history kept verbatim, as a fraction of the window; the rest is summarised. */
const KEEP_FRACTION = { threshold: 0.3, request: 0.3, overflow: 0.15 } as const;
/** The transcript the summariser reads is bounded to this fraction of the window. */
const TRANSCRIPT_FRACTION = 0.5;

export const COMPACTION_PROMPT = `You are compacting a long working session between a user and SCV, an agent that runs tools and delegates work to coding agents, so the session can continue within the model's context window. The transcript below is the older part of the session; the most recent turns are kept verbatim and are not shown. Write a summary that lets SCV continue the work without the transcript.

Keep, precisely and completely:
- the user's goals, requests and preferences, and facts the user stated;
- decisions made and why;
- exact file paths, commands, URLs, names and identifiers that matter;
- what was done and what the results were (conclusions, not full tool outputs);
- open tasks, open questions and the next steps;
- every agent handle and job handle (delegated agents, background jobs) with what it is doing and its last known status.

If the transcript begins with an earlier summary, carry everything in it that still matters into the new one. Write plain text with short headed sections. Do not address the user and do not add anything that is not in the transcript.`;

const tokenCache = new WeakMap<HistoryItem, number>();

/** A cheap, deterministic estimate (about four characters of request JSON per token). */
export function estimateTokens(items: readonly HistoryItem[]): number {
  let total = 0;
  for (const item of items) {
    let n = tokenCache.get(item);
    if (n === undefined) {
      n = Math.ceil(jsonLength(item) / 4);
      tokenCache.set(item, n);
    }
    total += n;
  }
  return total;
}

/** Strings longer than this are measured, not written out, when an item's JSON length is counted. */
const MEASURED_STRING_CHARS = 64 * 1024;

/**
 * JSON.stringify(value).length without the text of long strings (a 20 MB write's arguments): each is counted as
 * JSON escapes it (quote, backslash and control characters longer), so the estimate is the same either way.
 */
function jsonLength(value: unknown): number {
  let measured = 0;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "string" || v.length <= MEASURED_STRING_CHARS || !v.isWellFormed()) return v;
    measured += escapedLength(v) - 2; // it stands as "" in the text
    return "";
  });
  return text.length + measured;
}

/** The length of a well-formed string as a JSON string literal, quotes included. */
function escapedLength(s: string): number {
  let extra = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) extra += 1; // \" \\
    else if (c < 0x20) extra += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 1 : 5; // \n or \u001f
  }
  return s.length + 2 + extra;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const cutCache = new WeakMap<HistoryItem, HistoryItem>();

/**
 * Images a request carries at most (the newest); older ones are named in text instead. Bounds the request (each
 * image is at most 4 MiB) and the memory a long chat with many photos holds.
 */
export const MAX_SENT_IMAGES = 6;

/**
 * The history as requests carry it: tool outputs before `turnStart` cut to head and tail, and images beyond the
 * newest MAX_SENT_IMAGES named instead of sent (same objects each time).
 */
export function requestView(history: readonly HistoryItem[], turnStart: number): HistoryItem[] {
  const view = history.slice();
  for (let i = 0; i < Math.min(turnStart, view.length); i++) {
    const item = view[i]!;
    if (item.role !== "tool" || item.output.length <= SEEN_OUTPUT_KEEP) continue;
    let cut = cutCache.get(item);
    if (!cut) {
      cut = { ...item, output: headAndTail(item.output, SEEN_OUTPUT_KEEP, "this output was shown in full when the call ran") };
      cutCache.set(item, cut);
    }
    view[i] = cut;
  }
  let images = 0;
  for (let i = view.length - 1; i >= 0; i--) {
    const item = view[i]!;
    if ((item.role !== "user" && item.role !== "images") || !item.images?.length) continue;
    images += item.images.length;
    if (images > MAX_SENT_IMAGES) view[i] = imagesShownEarlier(item);
  }
  return view;
}

/** An item whose images an earlier request carried, naming them instead; their loaded bytes are let go. */
function imagesShownEarlier(item: Extract<HistoryItem, { role: "user" | "images" }>): HistoryItem {
  let named = cutCache.get(item);
  if (!named) {
    const names = (item.images ?? []).map(describeImage).join(", ");
    const note = `[images shown earlier, no longer sent: ${names}; read them again to see them]`;
    named = item.role === "user" ? { role: "user", content: `${item.content}\n${note}` } : { role: "user", content: `${note.slice(0, -1)} (returned by ${item.about})]` };
    cutCache.set(item, named);
    releaseImages(item.images ?? []);
  }
  return named;
}

function headAndTail(text: string, keep: number, why: string): string {
  if (text.length <= keep) return text;
  const head = Math.floor(keep * (HEAD / SEEN_OUTPUT_KEEP));
  const tail = keep - head;
  return `${text.slice(0, head)}\n[… ${text.length - keep} characters cut; ${why} …]\n${text.slice(-tail)}`;
}

/** The estimated size of the next request: the last reported input plus what was appended since, or a full estimate. */
export function estimateRequest(state: ContextState, view: readonly HistoryItem[], fixedTokens: number): number {
  const last = state.last;
  if (!last || last.view.length > view.length) return fixedTokens + estimateTokens(view);
  // Items sent in full last time may go cut now (a new turn began): count the difference.
  let tokens = last.inputTokens;
  for (let i = 0; i < last.view.length; i++) {
    if (view[i] !== last.view[i]) tokens += estimateTokens([view[i]!]) - estimateTokens([last.view[i]!]);
  }
  return tokens + estimateTokens(view.slice(last.view.length));
}

export function shouldCompact(state: ContextState, estimate: number): boolean {
  return !!state.overflowed || estimate > state.window * state.compactAt;
}

/** Where history may be split: the replaced part must not leave a tool result without its call. */
function isBoundary(history: readonly HistoryItem[], i: number): boolean {
  const item = history[i]!;
  if (item.role === "user" || item.role === "summary") return true;
  if (item.role === "tool") return false;
  const prev = history[i - 1];
  // A step starts after a tool result; reasoning items stay with the message and calls they preceded.
  return prev?.role === "tool";
}

export interface CompactDeps {
  model: ModelClient;
  modelName?: string;
  window: number;
  /** Index of the running turn's first item (history.length outside a turn): earlier tool outputs are seen. */
  turnStart: number;
  /** Tokens of the system prompt and tool schemas, for the before/after figures. */
  fixedTokens: number;
  signal: AbortSignal;
  /** Added to the summariser's instructions: what the session keeps apart from history (the owner's memory). */
  note?: string;
  /** Put at the head of the summary as it is (the person's task, the goal, the plan, files changed): never summarised. */
  pinned?: string;
}

/**
 * Replaces the older part of `history` (in place) with one summary item written by the model, keeping the most
 * recent turns verbatim. Returns the summary and the replaced items, or why nothing was replaced.
 */
export async function compactHistory(history: HistoryItem[], deps: CompactDeps, reason: CompactionReason): Promise<CompactResult> {
  const tokensBefore = deps.fixedTokens + estimateTokens(requestView(history, deps.turnStart));
  const split = olderPart(history, deps.turnStart, deps.window, reason);
  if (split === 0) return { ok: false, message: "the history has no older part to summarise" };
  const older = history.slice(0, split);
  const transcript = transcriptOf(older, Math.floor(deps.window * TRANSCRIPT_FRACTION) * 4);
  let text = "";
  let failure: ModelFailure | undefined;
  let usage: Usage | undefined;
  let status = "failed";
  for await (const ev of deps.model.stream({
    system: deps.note ? `${COMPACTION_PROMPT}\n\n${deps.note}` : COMPACTION_PROMPT,
    history: [{ role: "user", content: `${transcript}\n\n---\nWrite the summary of the transcript above now.` }],
    tools: [],
    model: deps.modelName,
    signal: deps.signal,
  })) {
    if (ev.type === "text") text += ev.delta;
    else if (ev.type === "end") {
      status = ev.status;
      failure = ev.failure;
      usage = ev.usage;
    }
  }
  if (status === "cancelled" || deps.signal.aborted) return { ok: false, message: "compaction was cancelled", cancelled: true, usage };
  if (status !== "completed" || !text.trim()) {
    const why = failure?.message ?? `its answer was ${status === "completed" ? "empty" : status}`;
    return { ok: false, message: `the model could not summarise the session: ${why}`, failure: failure ?? { class: "stream", message: why }, usage };
  }
  const turns = older.reduce((n, item) => n + (item.role === "user" ? 1 : item.role === "summary" ? item.turns : 0), 0);
  const summary: SummaryItem = { role: "summary", content: deps.pinned ? `${deps.pinned}\n\n${text.trim()}` : text.trim(), turns };
  const replaced = history.splice(0, split, summary);
  const tokensAfter = deps.fixedTokens + estimateTokens(requestView(history, Math.max(1, deps.turnStart - split + 1)));
  const newTurns = turns - (replaced[0]?.role === "summary" ? replaced[0].turns : 0);
  return { ok: true, summary, replaced, turns: newTurns, tokensBefore, tokensAfter, usage };
}

/**
 * How many of the oldest items a compaction for `reason` would summarise: 0 when there is nothing to replace
 * (one step so far, or only an earlier summary), so no request would be sent.
 */
export function olderPart(history: readonly HistoryItem[], turnStart: number, window: number, reason: CompactionReason): number {
  const split = splitPoint(history, turnStart, window * KEEP_FRACTION[reason]);
  return split === 1 && history[0]!.role === "summary" ? 0 : split;
}

/**
 * Where to split: the earliest turn start whose tail fits in `keepTokens`, else the earliest step start that
 * fits, else the last step start (one huge step); 0 if there is no place to split.
 */
function splitPoint(history: readonly HistoryItem[], turnStart: number, keepTokens: number): number {
  const view = requestView(history, turnStart);
  let tail = 0;
  let bestTurn = 0;
  let bestStep = 0;
  let last = 0;
  for (let i = view.length - 1; i > 0; i--) {
    tail += estimateTokens([view[i]!]);
    if (!isBoundary(history, i)) continue;
    if (last === 0) last = i;
    if (tail > keepTokens) break;
    bestStep = i;
    if (history[i]!.role === "user") bestTurn = i;
  }
  return bestTurn || bestStep || last;
}

const LIMITS = { message: 4000, call: 600, output: 1200 };

function transcriptOf(items: readonly HistoryItem[], maxChars: number): string {
  const entries: string[] = [];
  for (const item of items) {
    switch (item.role) {
      case "summary":
        // What SCV pinned is pinned again by the session, up to date: the summariser need not carry it.
        entries.push(`Earlier summary (covering ${item.turns} turns):\n${withoutPinned(item.content)}`);
        break;
      case "user":
        entries.push(`User: ${headAndTail(item.content, LIMITS.message, "cut for the summary")}${imagesNote(item.images)}`);
        break;
      case "images":
        entries.push(`Images returned by ${item.about}:${imagesNote(item.images)}`);
        break;
      case "assistant":
        if (item.content) entries.push(`SCV: ${headAndTail(item.content, LIMITS.message, "cut for the summary")}`);
        for (const call of item.toolCalls ?? []) entries.push(callLine(call));
        break;
      case "tool":
        entries.push(`Result of ${item.name} [${item.callId}]:\n${headAndTail(item.output, LIMITS.output, "cut for the summary")}`);
        break;
      case "reasoning":
        break; // encrypted; nothing to read
    }
  }
  // Over the bound: keep the earlier summary and the newest entries, and say what was left out.
  const keepFirst = items[0]?.role === "summary" ? 1 : 0;
  let size = entries.reduce((n, e) => n + e.length + 2, 0);
  let dropped = 0;
  while (size > maxChars && entries.length > keepFirst + 1) {
    size -= entries.splice(keepFirst, 1)[0]!.length + 2;
    dropped++;
  }
  if (dropped) entries.splice(keepFirst, 0, `[${dropped} older transcript entries were left out to fit]`);
  return headAndTail(entries.join("\n\n"), maxChars, "cut to fit the summary request");
}

/** Where the part of a summary SCV wrote itself begins and ends (src/server/task-pin.ts). */
export const PINNED_START = "## Kept by SCV at every compaction";
export const PINNED_END = "## End of what SCV kept";

function withoutPinned(content: string): string {
  if (!content.startsWith(PINNED_START)) return content;
  const end = content.indexOf(PINNED_END);
  return end < 0 ? content : content.slice(end + PINNED_END.length).trim();
}

function imagesNote(images: ImageRef[] | undefined): string {
  return images?.length ? ` [images: ${images.map(describeImage).join(", ")}]` : "";
}

function callLine(call: ToolCallRequest): string {
  const args = ellipsizeAfter(call.arguments, LIMITS.call);
  return `SCV called ${call.name} [${call.id}] with ${args}`;
}
