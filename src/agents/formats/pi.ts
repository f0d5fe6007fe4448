// pi `-p --mode json`: NDJSON agent events. The reply and usage come from the last assistant message_end; the
// trap is that pi exits 0 when the model call failed, so stopReason "error"/"aborted" and errorMessage decide.
// Auto-retry repeats agent_start…agent_end cycles, so the last assistant message wins.
import type { z } from "zod";
import { lazySchema } from "../../lazy-schema";
import type { FormatOutcome, FormatParser, ParserHooks, TokenUsage } from "./stream";
import { num } from "./stream";

const SessionHeader = lazySchema((z) => z.object({ type: z.literal("session"), id: z.string().min(1) }));

const AssistantMessage = lazySchema((z) => z.object({
  role: z.literal("assistant"),
  content: z.array(z.object({ type: z.string(), text: z.string().optional() })).catch([]),
  usage: z
    .object({ input: z.number().optional(), output: z.number().optional(), cacheRead: z.number().optional(), cacheWrite: z.number().optional() })
    .optional(),
  stopReason: z.string().optional(),
  errorMessage: z.string().optional(),
}));
const MessageEnd = lazySchema((z) => z.object({ type: z.literal("message_end"), message: z.unknown() }));

const ToolStart = lazySchema((z) => z.object({
  type: z.literal("tool_execution_start"),
  toolName: z.string(),
  args: z.record(z.string(), z.unknown()).catch({}),
}));
const ToolEnd = lazySchema((z) => z.object({ type: z.literal("tool_execution_end"), toolName: z.string(), isError: z.boolean().optional() }));
const RetryEnd = lazySchema((z) => z.object({ type: z.literal("auto_retry_end"), success: z.boolean(), finalError: z.string().optional() }));

const FILE_TOOLS = new Set(["read", "write", "edit"]);

function toolLine(name: string, args: Record<string, unknown>): string {
  const s = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : "");
  if (name === "bash" && s("command")) return `$ ${s("command")}`;
  if (FILE_TOOLS.has(name)) {
    const file = s("path") || s("file_path");
    return file ? `${name} ${file}` : name;
  }
  return name;
}

export function piParser(hooks: ParserHooks): FormatParser {
  let last: z.infer<typeof AssistantMessage> | undefined;
  let sessionId: string | undefined;
  let retryError: string | undefined;
  return {
    event(v) {
      const h = SessionHeader.safeParse(v);
      if (h.success) {
        if (h.data.id !== sessionId) hooks.session(h.data.id);
        sessionId = h.data.id;
        return;
      }
      const me = MessageEnd.safeParse(v);
      if (me.success) {
        const m = AssistantMessage.safeParse(me.data.message);
        if (m.success) last = m.data;
        return;
      }
      const ts = ToolStart.safeParse(v);
      if (ts.success) return hooks.progress(toolLine(ts.data.toolName, ts.data.args));
      const te = ToolEnd.safeParse(v);
      if (te.success) {
        if (te.data.isError) hooks.progress(`${te.data.toolName} failed`);
        return;
      }
      const re = RetryEnd.safeParse(v);
      if (re.success) retryError = re.data.success ? undefined : re.data.finalError;
    },
    finish(): FormatOutcome {
      if (!last) return { failed: !!retryError, declined: false, sessionId, ...(retryError ? { error: retryError } : {}) };
      const failed = last.stopReason === "error" || last.stopReason === "aborted" || !!last.errorMessage;
      const u = last.usage;
      const usage: TokenUsage | undefined = u && {
        input_tokens: num(u.input) + num(u.cacheRead) + num(u.cacheWrite),
        output_tokens: num(u.output),
        cached_input_tokens: num(u.cacheRead),
      };
      const out: FormatOutcome = { failed, declined: false, sessionId, usage };
      if (failed) out.error = last.errorMessage || retryError || `pi stopped with ${last.stopReason}`;
      const text = last.content.filter((c) => c.type === "text" && c.text).map((c) => c.text).join("");
      if (text || !failed) out.reply = text;
      return out;
    },
  };
}
