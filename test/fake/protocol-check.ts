// Every notification a test sees is checked against the protocol schema the docs come from
// (src/protocol/schema.ts): a field the server sends that the schema does not describe, or one it misses, fails
// the test that saw it instead of drifting silently.
import { notifications } from "../../src/protocol/schema";

type Checkable = { params: { safeParse(v: unknown): { success: boolean; error?: { message: string } } } };

/** What is wrong with a notification, or undefined when it matches its schema. */
export function notificationProblem(method: string, params: unknown): string | undefined {
  const spec = (notifications as unknown as Record<string, Checkable>)[method];
  if (!spec) return `${method}: not a notification of the protocol`;
  const r = spec.params.safeParse(params);
  return r.success ? undefined : `${method}: ${r.error?.message} in ${JSON.stringify(params).slice(0, 400)}`;
}
