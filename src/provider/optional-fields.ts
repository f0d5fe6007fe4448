// Some OpenAI-compatible servers reject request fields they do not know (`include`, `reasoning`,
// `reasoning_effort`) with HTTP 400. Such an answer names the field in `error.param` or in its message; SCV then
// stops sending that field for the rest of the session instead of failing every request.
import { ErrorEnvelope } from "./wire";

const REJECTION = /unknown|unrecognized|unrecogni[sz]ed|unsupported|not supported|not allowed|not permitted|extra|invalid|unexpected/i;

/** The candidate fields a 400 answer names as rejected (empty when it names none). */
export function rejectedFields(status: number, bodyText: string, candidates: readonly string[]): string[] {
  if (status !== 400 && status !== 422) return [];
  let param = "";
  let message = bodyText;
  try {
    const parsed = ErrorEnvelope.safeParse(JSON.parse(bodyText));
    if (parsed.success) {
      param = parsed.data.error.param ?? "";
      message = parsed.data.error.message ?? "";
    }
  } catch {
    // a plain-text body: look for the name in the text itself
  }
  return candidates.filter((field) => {
    if (param === field || param.startsWith(`${field}.`) || param.startsWith(`${field}[`)) return true;
    const named = new RegExp(`(^|[^A-Za-z0-9_.])${field}(?![A-Za-z0-9_]|\\.[A-Za-z])`).test(message);
    return named && REJECTION.test(message);
  });
}
