// Codex `exec --json`: JSONL thread events. The reply is the last agent_message item (or the -o file when the
// stream carried none), usage comes from turn.completed (a running total for the thread, across resume: the
// caller diffs it), and failures are turn.failed or a top-level error. `error` items are non-fatal warnings.
import { lazySchema } from "../../lazy-schema";
import type { FormatOutcome, FormatParser, ParserHooks, TokenUsage } from "./stream";
import { num } from "./stream";

const ThreadStarted = lazySchema((z) => z.object({ type: z.literal("thread.started"), thread_id: z.string().min(1) }));
const TurnCompleted = lazySchema((z) => z.object({
  type: z.literal("turn.completed"),
  usage: z.object({ input_tokens: z.number().optional(), cached_input_tokens: z.number().optional(), output_tokens: z.number().optional() }).optional(),
}));
const TurnFailed = lazySchema((z) => z.object({ type: z.literal("turn.failed"), error: z.object({ message: z.string() }).optional() }));
const TopError = lazySchema((z) => z.object({ type: z.literal("error"), message: z.string() }));

const Item = lazySchema((z) => z.discriminatedUnion("type", [
  z.object({ type: z.literal("agent_message"), text: z.string() }),
  z.object({
    type: z.literal("command_execution"),
    command: z.string(),
    exit_code: z.number().nullish(),
    status: z.string().optional(),
  }),
  z.object({
    type: z.literal("file_change"),
    changes: z.array(z.object({ path: z.string(), kind: z.string() })).catch([]),
    status: z.string().optional(),
  }),
  z.object({
    type: z.literal("web_search"),
    query: z.string().optional(),
    action: z.object({ query: z.string().optional() }).passthrough().optional(),
  }),
]));
const ItemEvent = lazySchema((z) => z.object({ type: z.enum(["item.started", "item.updated", "item.completed"]), item: z.unknown() }));

/** `/bin/bash -lc 'echo hi'` reads better as `echo hi`. */
export function unwrapShell(command: string): string {
  const m = /^(?:\S*\/)?(?:ba|z|da)?sh\s+-l?c\s+(?:'((?:[^']|'\\'')*)'|"((?:[^"\\]|\\.)*)")$/.exec(command.trim());
  if (!m) return command;
  return m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!.replace(/\\(.)/g, "$1");
}

export function codexParser(hooks: ParserHooks): FormatParser {
  let reply: string | undefined;
  let usage: TokenUsage | undefined;
  let threadId: string | undefined;
  let turnFailed: string | undefined;
  let sawTurnFailed = false;
  let lastError: string | undefined;
  let completed = false;
  return {
    event(v) {
      const ts = ThreadStarted.safeParse(v);
      if (ts.success) {
        if (ts.data.thread_id !== threadId) hooks.session(ts.data.thread_id);
        threadId = ts.data.thread_id;
        return;
      }
      const ie = ItemEvent.safeParse(v);
      if (ie.success) {
        const item = Item.safeParse(ie.data.item);
        if (!item.success) return;
        const it = item.data;
        const started = ie.data.type === "item.started";
        const done = ie.data.type === "item.completed";
        if (it.type === "agent_message" && done) reply = it.text;
        else if (it.type === "command_execution") {
          if (started) hooks.progress(`$ ${unwrapShell(it.command)}`);
          else if (done && typeof it.exit_code === "number" && it.exit_code !== 0) {
            hooks.progress(`exit ${it.exit_code}: ${unwrapShell(it.command)}`);
          }
        } else if (it.type === "file_change" && done && it.status !== "failed") {
          for (const c of it.changes) hooks.progress(`${c.kind} ${c.path}`);
        } else if (it.type === "web_search" && done) {
          const q = it.action?.query || it.query;
          if (q) hooks.progress(`search: ${q}`);
        }
        return;
      }
      const tc = TurnCompleted.safeParse(v);
      if (tc.success) {
        completed = true;
        const u = tc.data.usage;
        // Codex's input_tokens already holds the cached ones (OpenAI's counting).
        if (u) usage = { input_tokens: num(u.input_tokens), output_tokens: num(u.output_tokens), cached_input_tokens: num(u.cached_input_tokens) };
        return;
      }
      const tf = TurnFailed.safeParse(v);
      if (tf.success) {
        sawTurnFailed = true;
        turnFailed = tf.data.error?.message;
        return;
      }
      const te = TopError.safeParse(v);
      if (te.success) lastError = te.data.message;
    },
    finish(): FormatOutcome {
      // A top-level error followed by a completed turn was a retry notice, not a failure.
      const failed = sawTurnFailed || (lastError !== undefined && !completed);
      const out: FormatOutcome = { failed, declined: false, sessionId: threadId, usage };
      if (failed) out.error = turnFailed || lastError || "Codex reported a failed turn";
      if (reply !== undefined) out.reply = reply;
      return out;
    },
  };
}
