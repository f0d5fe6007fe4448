// Claude Code `-p --output-format stream-json --verbose`: NDJSON whose last line is a `result` event with the
// reply, `is_error` and usage. Trap: API errors arrive as subtype "success" with is_error true (and exit 1).
import type { z } from "zod";
import { lazySchema } from "../../lazy-schema";
import { type FormatOutcome, type FormatParser, type ParserHooks, type TokenUsage, firstLine, num } from "./stream";

const SystemInit = lazySchema((z) => z.object({ type: z.literal("system"), subtype: z.literal("init"), session_id: z.string().min(1) }));

const ContentBlock = lazySchema((z) => z.union([
  z.object({ type: z.literal("tool_use"), name: z.string(), input: z.record(z.string(), z.unknown()).catch({}) }),
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.string() }),
]));

const Assistant = lazySchema((z) => z.object({
  type: z.literal("assistant"),
  message: z.object({ content: z.array(ContentBlock).catch([]) }),
  session_id: z.string().optional(),
  /** e.g. "authentication_failed" on a synthetic error message. */
  error: z.string().optional(),
}));

const Usage = lazySchema((z) => z.object({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
}));

const Result = lazySchema((z) => z.object({
  type: z.literal("result"),
  subtype: z.string(),
  is_error: z.boolean().optional(),
  /** Absent on error_* subtypes, which carry `errors` instead. */
  result: z.string().optional(),
  errors: z.array(z.string()).optional(),
  stop_reason: z.string().nullish(),
  usage: Usage.optional(),
  api_error_status: z.number().nullish(),
  session_id: z.string().optional(),
}));

const FILE_TOOLS = new Set(["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead"]);

function toolLine(name: string, input: Record<string, unknown>): string {
  const s = (k: string) => (typeof input[k] === "string" ? (input[k] as string) : "");
  if (name === "Bash" && s("command")) return `$ ${s("command")}`;
  if (FILE_TOOLS.has(name)) {
    const file = s("file_path") || s("notebook_path") || s("path");
    return file ? `${name} ${file}` : name;
  }
  if (name === "WebSearch") return s("query") ? `search: ${s("query")}` : "search:";
  if (name === "WebFetch") return s("url") ? `fetch ${s("url")}` : "fetch";
  return name;
}

/** Prompt tokens including cache reads and writes, which Anthropic counts separately. */
function usageOf(u: z.infer<typeof Usage>): TokenUsage {
  return {
    input_tokens: num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens),
    output_tokens: num(u.output_tokens),
    cached_input_tokens: num(u.cache_read_input_tokens),
  };
}

export function claudeParser(hooks: ParserHooks): FormatParser {
  let result: z.infer<typeof Result> | undefined;
  let sessionId: string | undefined;
  let assistantError: string | undefined;
  let held: string | undefined;
  const flushHeld = () => {
    if (held !== undefined) hooks.progress(held);
    held = undefined;
  };
  const noteSession = (id: string | undefined) => {
    if (id && id !== sessionId) {
      sessionId = id;
      hooks.session(id);
    }
  };
  return {
    event(v) {
      const init = SystemInit.safeParse(v);
      if (init.success) return noteSession(init.data.session_id);
      const a = Assistant.safeParse(v);
      if (a.success) {
        noteSession(a.data.session_id);
        if (a.data.error) assistantError = a.data.error;
        flushHeld();
        const usesTools = a.data.message.content.some((b) => b.type === "tool_use");
        for (const block of a.data.message.content) {
          if (block.type === "tool_use" && "name" in block) hooks.progress(toolLine(block.name, block.input));
          else if (block.type === "text" && "text" in block && !a.data.error) {
            const line = firstLine(block.text);
            // Text beside a tool call is interim; text alone may be the final answer, held until we know.
            if (line && usesTools) hooks.progress(line);
            else if (line) held = line;
          }
        }
        return;
      }
      const r = Result.safeParse(v);
      if (r.success) {
        result = r.data;
        noteSession(r.data.session_id);
        // The final answer is the result, not progress.
        if (held !== undefined && held === firstLine(r.data.result ?? "")) held = undefined;
        flushHeld();
      }
    },
    finish(): FormatOutcome {
      if (!result) {
        return { failed: !!assistantError, declined: false, sessionId, ...(assistantError ? { error: assistantError } : {}) };
      }
      const failed = result.is_error === true || result.subtype !== "success";
      const out: FormatOutcome = {
        failed,
        declined: !failed && result.stop_reason === "refusal",
        sessionId,
        usage: result.usage ? usageOf(result.usage) : undefined,
      };
      // A run that failed before any model call (signed out) reports zero usage: there was none.
      if (failed && out.usage && out.usage.input_tokens === 0 && out.usage.output_tokens === 0) out.usage = undefined;
      if (failed) {
        out.error = result.result || result.errors?.join("; ") || assistantError || `Claude Code ended with ${result.subtype}`;
        if (typeof result.api_error_status === "number") out.errorStatus = result.api_error_status;
      } else {
        out.reply = result.result ?? "";
      }
      return out;
    },
  };
}
