// Grok Build `-p … --output-format json`: one object `{"text","stopReason","sessionId","requestId","usage",
// "num_turns","modelUsage"}`, pretty-printed over many lines by grok 1.0.41, so stdout is read as one document. The trap it closes: in plain text a run Grok stopped because a tool needed an
// approval headless mode cannot give exits 0 with empty stdout; here that is `"stopReason":"cancelled"`.
import type { z } from "zod";
import { lazySchema } from "../../lazy-schema";
import { type FormatOutcome, type FormatParser, type ParserHooks, num } from "./stream";

const GrokResult = lazySchema((z) => z.object({
  text: z.string().nullish(),
  stopReason: z.string().nullish(),
  sessionId: z.string().min(1).nullish(),
  usage: z
    .object({
      input_tokens: z.number().optional(),
      output_tokens: z.number().optional(),
      cache_read_input_tokens: z.number().nullish(),
      cache_creation_input_tokens: z.number().nullish(),
    })
    .nullish()
    .catch(undefined),
}));

const CANCELLED_ERROR = 'Grok stopped before finishing (stop reason "cancelled")';
const CANCELLED_NOTE =
  'Grok usually stops like this when a tool needed an approval that a headless run cannot give. Tell the user; they can set [agents.grok] permissions = "full" to let it act without approval prompts.';

export function grokParser(hooks: ParserHooks): FormatParser {
  let result: z.infer<typeof GrokResult> | undefined;
  return {
    wholeDocument: true,
    event(v) {
      const r = GrokResult.safeParse(v);
      if (!r.success || (r.data.text === undefined && r.data.stopReason === undefined)) return;
      result = r.data;
      if (r.data.sessionId) hooks.session(r.data.sessionId);
    },
    finish(): FormatOutcome {
      if (!result) return { failed: false, declined: false };
      const u = result.usage;
      const out: FormatOutcome = {
        reply: result.text ?? "",
        failed: false,
        declined: result.stopReason === "refusal",
        sessionId: result.sessionId ?? undefined,
        usage: u
          ? {
              input_tokens: num(u.input_tokens) + num(u.cache_read_input_tokens) + num(u.cache_creation_input_tokens),
              output_tokens: num(u.output_tokens),
              cached_input_tokens: num(u.cache_read_input_tokens),
            }
          : undefined,
      };
      if (result.stopReason === "cancelled") {
        out.failed = true;
        out.error = CANCELLED_ERROR;
        out.note = CANCELLED_NOTE;
      } else if (result.stopReason && !["end_turn", "refusal"].includes(result.stopReason)) {
        out.note = `(stopped early: ${result.stopReason})`;
      }
      return out;
    },
  };
}
