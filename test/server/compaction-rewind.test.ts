// A conversation rewind past a compaction, through the compiled binary's stdio server and the scripted model: a
// `/compact` made between turns (session.compact) summarises turns that a later rewind takes out; the rewind
// undoes the compaction, so the next request carries the kept turn verbatim and no summary of the rewound ones,
// live and after a resume; a summary that stands only for kept turns stays.
import { expect, setDefaultTimeout, test } from "bun:test";
import { fakeHome, fakeModelForFile } from "../fake/binary";
import { startFakeModel, text } from "../fake/model-server";
import { stdioSessions } from "../fake/stdio-session";

setDefaultTimeout(60_000);

const fake = fakeModelForFile();
const open = stdioSessions(fake);

// Each turn is about 1200 tokens: a small window so `session.compact` has older turns to summarise, and background
// commands off so the tool schemas stay under the threshold (no compaction but the one asked for).
const CONFIG = `context_window = 8000\n[tools]\nmax_background_commands = 0\n`;
const PAD = ` ${"(context) ".repeat(240)}`;

const lastRequest = () => JSON.stringify(fake.requests.at(-1)!.body.input);

test("a /compact between turns, then a rewind past it: the next request has the kept turn verbatim and no summary, live and resumed", async () => {
  const h = fakeHome(fake.url, CONFIG);
  const { s, sid, turn } = await open(h);
  await turn(`KEPT-PROMPT the deploy target is berlin-3.${PAD}`, text(`Noted berlin-3.${PAD}`));
  await turn(`GONE-PROMPT-2 start job-7.${PAD}`, text(`Job job-7 started.${PAD}`));
  await turn(`GONE-PROMPT-3 how is it going?${PAD}`, text(`Still running.${PAD}`));
  fake.queue(text("SUMMARY-MARK: the user deploys to berlin-3; job-7 runs the tests."));
  const compacted = (await s.call("session.compact", { session_id: sid })).result;
  expect(compacted).toMatchObject({ compacted: true, turns: 2 }); // t1 and t2 summarised, between turns
  await turn("check", text("ok"));
  expect(lastRequest()).toContain("SUMMARY-MARK");
  // Summarised away: the turn's reply (the person's own words stay, kept word for word at every compaction).
  expect(lastRequest()).not.toContain("Noted berlin-3");

  const rewound = await s.call("session.rewind", { session_id: sid, to_turn: "t1", files: false, conversation: true, apply: true });
  expect(rewound.error).toBeUndefined();
  expect(rewound.result).toMatchObject({ applied: true, conversation_rewound: 3 });
  await turn("after the rewind", text("fresh"));
  const live = lastRequest();
  expect(live).not.toContain("SUMMARY-MARK");
  expect(live).toContain("KEPT-PROMPT"); // the turn kept comes back verbatim
  expect(live).toContain("Noted berlin-3");
  expect(live).not.toContain("GONE-PROMPT");
  expect(live).not.toContain("job-7");

  // A resume reads the same history from the session file.
  s.proc.kill("SIGKILL");
  await s.proc.exited;
  const again = await open(h, sid);
  await again.turn("resumed", text("still fresh"));
  const resumed = lastRequest();
  expect(resumed).not.toContain("SUMMARY-MARK");
  expect(resumed).toContain("KEPT-PROMPT");
  expect(resumed).not.toContain("GONE-PROMPT");
});

test("a rewind to a turn a compaction left verbatim keeps the summary of the turns before it", async () => {
  const h = fakeHome(fake.url, CONFIG);
  const { s, sid, turn } = await open(h);
  await turn(`OLD-PROMPT-1 the deploy target is berlin-3.${PAD}`, text(`Noted berlin-3.${PAD}`));
  await turn(`OLD-PROMPT-2 start job-7.${PAD}`, text(`Job job-7 started.${PAD}`));
  await turn(`KEPT-PROMPT-3 how is it going?${PAD}`, text(`Still running.${PAD}`));
  fake.queue(text("SUMMARY-MARK: berlin-3, job-7."));
  expect((await s.call("session.compact", { session_id: sid })).result).toMatchObject({ compacted: true, turns: 2 });
  await turn("GONE-PROMPT-4 more", text("ok"));
  expect((await s.call("session.rewind", { session_id: sid, to_turn: "t3", files: false, apply: true })).result).toMatchObject({ applied: true, conversation_rewound: 1 });
  await turn("after", text("fine"));
  const input = lastRequest();
  expect(input).toContain("SUMMARY-MARK"); // it stands for t1 and t2 only, which stay
  expect(input).toContain("KEPT-PROMPT-3");
  expect(input).not.toContain("Noted berlin-3"); // the summarised turns' replies stay summarised
  expect(input).not.toContain("Job job-7 started");
  expect(input).not.toContain("GONE-PROMPT-4");
});

test("a compaction made inside a turn is undone by a rewind to before that turn (once refused)", async () => {
  const isSummary = (body: any) => typeof body.instructions === "string" && body.instructions.startsWith("You are compacting");
  const model = await startFakeModel({ respond: (body) => (isSummary(body) ? text("SUMMARY-MARK of the early turns") : text(`ok.${PAD}`)) });
  try {
    const h = fakeHome(model.url, CONFIG);
    const { s, sid, turn } = await open(h);
    await turn("KEPT-PROMPT-1 the target is berlin-3.");
    let n = 2;
    // Turns of about 1200 tokens each until one compacts inside itself (the threshold, before its request).
    for (; n < 12 && !s.messages.some((m) => m.method === "session.compacted"); n++) await turn(`GONE-PROMPT-${n}.${PAD}`);
    const compacted = s.messages.find((m) => m.method === "session.compacted")!.params;
    expect(compacted).toMatchObject({ reason: "threshold", turn_id: `t${n - 1}` });
    const rewound = await s.call("session.rewind", { session_id: sid, to_turn: "t1", files: false, apply: true });
    expect(rewound.error).toBeUndefined();
    await turn("after the rewind");
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).not.toContain("SUMMARY-MARK");
    expect(input).toContain("KEPT-PROMPT-1");
    expect(input).not.toContain("GONE-PROMPT");
  } finally {
    await model.close();
  }
});
