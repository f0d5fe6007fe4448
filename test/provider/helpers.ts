// Shared setup for provider tests: a profile pointed at the fake, fast retry timing, event collection.
import { ProviderProfile, withKindDefaults } from "../../src/config/schema";
import { createModelClient, type ModelClientOptions } from "../../src/provider/client";
import type { HistoryItem, ModelEvent, ModelRequest } from "../../src/provider/types";

export const WIRES = ["responses", "chat"] as const;
export type Wire = (typeof WIRES)[number];

export const TEST_KEY = "sk-proj-TESTKEY0123456789abcdefSECRET";

export function profile(baseUrl: string, wire: Wire, extra: Record<string, unknown> = {}): ProviderProfile {
  return withKindDefaults(ProviderProfile.parse({ base_url: baseUrl, wire_api: wire, model: "gpt-test", ...extra }), "test");
}

export function client(baseUrl: string, wire: Wire, extra: Record<string, unknown> = {}, opts: Partial<ModelClientOptions> = {}) {
  return createModelClient(profile(baseUrl, wire, extra), {
    version: "9.9.9-test",
    apiKey: TEST_KEY,
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 300 },
    ...opts,
  });
}

export function request(over: Partial<ModelRequest> = {}, history: HistoryItem[] = [{ role: "user", content: "hello" }]): ModelRequest {
  return {
    system: "You are a test.",
    history,
    tools: [{ name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }],
    signal: new AbortController().signal,
    ...over,
  };
}

export async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

export const textOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("");
export const refusalOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "refusal" ? [e.delta] : [])).join("");
export const endOf = (events: ModelEvent[]) => {
  const last = events.at(-1);
  if (!last || last.type !== "end") throw new Error(`stream did not end with an end event: ${JSON.stringify(last)}`);
  return last;
};
export const callsOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
export const retriesOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "retry" ? [e] : []));
