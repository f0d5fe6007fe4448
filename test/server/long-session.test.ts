// A long session against a scripted endpoint with a small context window (32k tokens, answering
// context_length_exceeded past it): 200 turns, each reading a file near the tool output limit. No turn may
// fail, compaction must happen, and every request, the summary requests included, must still carry the facts
// the user gave in earlier turns.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Harness, startHarness } from "../fake/harness";
import { type FakeReply, startFakeModel, text, toolCalls } from "../fake/model-server";

const WINDOW = 32_000;
const TURNS = 200;

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const factsIn = (s: string) => new Set([...s.matchAll(/FACT-(\d+)=(w\d+x)/g)].map((m) => `FACT-${m[1]}=${m[2]}`));
const isSummaryRequest = (body: any) => typeof body.instructions === "string" && body.instructions.startsWith("You are compacting");

/** A model that reads big.txt once per turn, and that summarises by keeping every fact it is shown. */
function respond(body: any): FakeReply {
  const input = JSON.stringify(body.input);
  if (isSummaryRequest(body)) return text(`Goals: answer the user's turns.\nFacts the user gave:\n${[...factsIn(input)].join("\n")}`);
  const last = body.input.at(-1);
  if (last?.type === "function_call_output") return text("Read it; noted the fact.", { reasoning: true });
  return toolCalls([{ name: "read", arguments: { path: "big.txt" } }], { reasoning: true });
}

async function longSession(profileWindow: number | undefined) {
  const fake = await startFakeModel({ contextWindowTokens: WINDOW, respond });
  h = await startHarness({
    fake,
    config: `${profileWindow ? `context_window = ${profileWindow}\n` : ""}[tools]\noutput_limit_bytes = 16384\n`,
  });
  writeFileSync(join(h.workspace, "big.txt"), "log line with some words in it\n".repeat(2048)); // 63 KiB; read returns ~16 KiB
  const sid = await h.start();
  const statuses: string[] = [];
  try {
    for (let n = 1; n <= TURNS; n++) {
      const ended = await h.turn(sid, `Turn ${n}. Remember FACT-${n}=w${n}x for later. Then read big.txt.`);
      statuses.push(ended.status === "completed" ? "ok" : `turn ${n}: ${ended.status} ${ended.error?.class}: ${ended.error?.message}`);
    }
  } finally {
    await fake.close();
  }
  return { fake, statuses };
}

describe("a 200-turn session in a 32k window", () => {
  test("with the window configured: compaction keeps every request inside it and every fact in view", async () => {
    const { fake, statuses } = await longSession(WINDOW);
    expect(statuses.filter((s) => s !== "ok")).toEqual([]);
    const compacted = h.events.filter((e) => e.method === "session.compacted").map((e) => e.params);
    expect(compacted.length).toBeGreaterThan(5);
    for (const c of compacted) {
      expect(c.reason).toBe("threshold");
      expect(c.tokens_after).toBeLessThan(c.tokens_before);
    }
    // Requests stayed inside the window: SCV compacted before the endpoint had to refuse.
    expect(fake.requests.filter((r) => Math.ceil(JSON.stringify(r.body).length / 4) > WINDOW)).toEqual([]);
    checkFacts(fake.requests.map((r) => r.body));
  }, 120_000);

  test("with the window unknown (default 128000): context_length_exceeded triggers compaction and one retry", async () => {
    const { fake, statuses } = await longSession(undefined);
    expect(statuses.filter((s) => s !== "ok")).toEqual([]);
    const compacted = h.events.filter((e) => e.method === "session.compacted").map((e) => e.params);
    expect(compacted.length).toBeGreaterThan(5);
    expect(compacted.every((c) => c.reason === "overflow")).toBe(true);
    checkFacts(fake.requests.map((r) => r.body));
  }, 120_000);
});

/** Every turn's requests, and every summary request, carry all the facts given before them. */
function checkFacts(bodies: any[]) {
  let summaries = 0;
  for (const body of bodies) {
    const input = JSON.stringify(body.input);
    if (isSummaryRequest(body)) {
      summaries++;
      // The summariser is shown the earliest fact (through the previous summary) and the newest it replaces.
      expect(factsIn(input).has("FACT-1=w1x")).toBe(true);
      continue; // the rest is checked through the requests that follow it
    }
    const turn = Number(/Turn (\d+)\. Remember/.exec(JSON.stringify(body.input.filter((i: any) => i.role === "user").at(-1)))?.[1]);
    const seen = factsIn(input);
    const missing = [];
    for (let k = 1; k <= turn; k++) if (!seen.has(`FACT-${k}=w${k}x`)) missing.push(k);
    expect({ turn, missing }).toEqual({ turn, missing: [] });
  }
  expect(summaries).toBeGreaterThan(5);
}
