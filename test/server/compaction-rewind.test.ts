// A conversation rewind past a compaction, through the compiled binary's stdio server and the scripted model: a
// `/compact` made between turns (session.compact) summarises turns that a later rewind takes out; the rewind
// undoes the compaction, so the next request carries the kept turn verbatim and no summary of the rewound ones,
// live and after a resume. The same holds for a compaction made inside a turn.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fakeHome } from "../fake/binary";
import { type FakeModel, startFakeModel, text } from "../fake/model-server";
import { startStdioServer } from "../fake/stdio-client";

setDefaultTimeout(60_000);

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());

const roots: string[] = [];
const servers: ReturnType<typeof startStdioServer>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.proc.kill("SIGKILL");
    await s.proc.exited;
  }
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  fake.clear();
});

// Each turn is about 1200 tokens: a small window so `session.compact` has older turns to summarise, and background
// commands off so the tool schemas stay under the threshold (no compaction but the one asked for).
const CONFIG = `context_window = 8000\n[tools]\nmax_background_commands = 0\n`;
const PAD = ` ${"(context) ".repeat(240)}`;

async function open(h: ReturnType<typeof fakeHome>, resume?: string) {
  const s = startStdioServer(h.env, h.workspace);
  servers.push(s);
  await s.call("initialize", { protocol_version: 3 });
  const sid = resume
    ? ((await s.call("session.resume", { session_id: resume })).result.session_id as string)
    : ((await s.call("session.start", { cwd: h.workspace, auto_approve: true })).result.session_id as string);
  const turn = async (prompt: string, reply: string) => {
    fake.queue(text(reply));
    const { turn_id } = (await s.call("turn.start", { session_id: sid, prompt })).result;
    const ended = await s.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === turn_id, 30_000);
    expect(ended.params.status).toBe("completed");
    return turn_id as string;
  };
  return { s, sid, turn };
}

const lastRequest = () => JSON.stringify(fake.requests.at(-1)!.body.input);

test("a /compact between turns, then a rewind past it: the next request has the kept turn verbatim and no summary, live and resumed", async () => {
  const h = fakeHome(fake.url, CONFIG);
  roots.push(join(h.home, ".."));
  const { s, sid, turn } = await open(h);
  await turn(`KEPT-PROMPT the deploy target is berlin-3.${PAD}`, `Noted berlin-3.${PAD}`);
  await turn(`GONE-PROMPT-2 start job-7.${PAD}`, `Job job-7 started.${PAD}`);
  await turn(`GONE-PROMPT-3 how is it going?${PAD}`, `Still running.${PAD}`);
  fake.queue(text("SUMMARY-MARK: the user deploys to berlin-3; job-7 runs the tests."));
  const compacted = (await s.call("session.compact", { session_id: sid })).result;
  expect(compacted).toMatchObject({ compacted: true, turns: 2 }); // t1 and t2 summarised, between turns
  await turn("check", "ok");
  expect(lastRequest()).toContain("SUMMARY-MARK");
  expect(lastRequest()).not.toContain("KEPT-PROMPT"); // summarised away

  const rewound = await s.call("session.rewind", { session_id: sid, to_turn: "t1", files: false, conversation: true, apply: true });
  expect(rewound.error).toBeUndefined();
  expect(rewound.result).toMatchObject({ applied: true, conversation_rewound: 3 });
  await turn("after the rewind", "fresh");
  const live = lastRequest();
  expect(live).not.toContain("SUMMARY-MARK");
  expect(live).toContain("KEPT-PROMPT"); // the turn kept comes back verbatim
  expect(live).not.toContain("GONE-PROMPT");
  expect(live).not.toContain("job-7");

  // A resume reads the same history from the session file.
  s.proc.kill("SIGKILL");
  await s.proc.exited;
  const again = await open(h, sid);
  await again.turn("resumed", "still fresh");
  const resumed = lastRequest();
  expect(resumed).not.toContain("SUMMARY-MARK");
  expect(resumed).toContain("KEPT-PROMPT");
  expect(resumed).not.toContain("GONE-PROMPT");
});

test("a rewind to a turn a compaction left verbatim keeps the summary of the turns before it", async () => {
  const h = fakeHome(fake.url, CONFIG);
  roots.push(join(h.home, ".."));
  const { s, sid, turn } = await open(h);
  await turn(`OLD-PROMPT-1 the deploy target is berlin-3.${PAD}`, `Noted berlin-3.${PAD}`);
  await turn(`OLD-PROMPT-2 start job-7.${PAD}`, `Job job-7 started.${PAD}`);
  await turn(`KEPT-PROMPT-3 how is it going?${PAD}`, `Still running.${PAD}`);
  fake.queue(text("SUMMARY-MARK: berlin-3, job-7."));
  expect((await s.call("session.compact", { session_id: sid })).result).toMatchObject({ compacted: true, turns: 2 });
  await turn("GONE-PROMPT-4 more", "ok");
  expect((await s.call("session.rewind", { session_id: sid, to_turn: "t3", files: false, apply: true })).result).toMatchObject({ applied: true, conversation_rewound: 1 });
  await turn("after", "fine");
  const input = lastRequest();
  expect(input).toContain("SUMMARY-MARK"); // it stands for t1 and t2 only, which stay
  expect(input).toContain("KEPT-PROMPT-3");
  expect(input).not.toContain("OLD-PROMPT");
  expect(input).not.toContain("GONE-PROMPT-4");
});
