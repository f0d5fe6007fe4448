// Durable sessions over the in-process protocol: a session's turns and history survive its server, and
// session.resume continues it with the full history (the fake model sees the earlier turns).
import { afterEach, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Harness, startHarness } from "../fake/harness";
import { text, toolCalls } from "../fake/model-server";

const harnesses: Harness[] = [];
afterEach(async () => {
  const all = harnesses.splice(0);
  for (const h of [...all].reverse()) await h.close();
  all[0]?.remove();
});

async function harness(opts: Parameters<typeof startHarness>[0] = {}) {
  const h = await startHarness(opts);
  harnesses.push(h);
  return h;
}

const inputText = (body: any) => JSON.stringify(body.input ?? body.messages);

test("a closed session resumes with its turns and history; the next turn sends the earlier ones to the model", async () => {
  const first = await harness();
  first.fake.queue(toolCalls([{ name: "read", arguments: { path: "missing.txt" } }]), text("No such file, sorry."), text("Second answer."));
  const sid = await first.start();
  expect((await first.turn(sid, "read missing.txt")).status).toBe("completed");
  expect((await first.turn(sid, "and now?")).reply).toBe("Second answer.");
  await first.request("session.close", { session_id: sid });

  const dir = join(first.home, "state", "sessions");
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(join(dir, `${sid}.jsonl`)).mode & 0o777).toBe(0o600);

  // A new server on the same SCV_HOME, as after a restart.
  const second = await harness({ home: first.home, fake: first.fake });
  await second.request("initialize", { protocol_version: 3 });
  const resumed = await second.request("session.resume", { session_id: sid });
  expect(resumed.session_id).toBe(sid);
  expect(resumed.workspace).toBe(first.workspace);
  expect(resumed.tools).toContain("session_search");
  expect(resumed.turns.map((t: any) => [t.turn_id, t.prompt, t.status, t.reply])).toEqual([
    ["t1", "read missing.txt", "completed", "No such file, sorry."],
    ["t2", "and now?", "completed", "Second answer."],
  ]);
  expect(resumed.warnings).toEqual([]);

  first.fake.queue(text("Third answer."));
  const ended = await second.turn(sid, "third question");
  expect(ended).toMatchObject({ turn_id: "t3", status: "completed", reply: "Third answer." });
  const sent = inputText(first.fake.requests[first.fake.requests.length - 1]!.body);
  for (const earlier of ["read missing.txt", "No such file, sorry.", "and now?", "Second answer.", "third question"]) expect(sent).toContain(earlier);
  // The tool call and its result are part of the replayed history (the fake rejects an unanswered call).
  expect(sent).toContain("missing.txt");
});

test("resume refuses a session open on this connection or unknown, with errors that say so", async () => {
  const h = await harness();
  h.fake.queue(text("hi"));
  const sid = await h.start();
  await h.turn(sid, "hello");
  await expect(h.request("session.resume", { session_id: sid })).rejects.toMatchObject({ code: -32006 });
  await expect(h.request("session.resume", { session_id: "s-00000000" })).rejects.toMatchObject({ code: -32003 });
  await expect(h.request("session.resume", { session_id: "../../etc/passwd" })).rejects.toMatchObject({ code: -32003 });
});

test("a session that never ran a turn leaves no file behind", async () => {
  const h = await harness();
  const sid = await h.start();
  await h.request("session.close", { session_id: sid });
  expect(readdirSync(join(h.home, "state", "sessions"))).toEqual([]);
});

test("session_search finds turns across three earlier sessions, newest first; a chat sender's tool-free session cannot search", async () => {
  const h = await harness();
  const topics = ["the Orange deploy failed on friday", "unrelated chatter", "orange deploy went fine on monday"];
  for (const topic of topics) {
    h.fake.queue(text(`noted: ${topic}`));
    const sid = await h.start();
    await h.turn(sid, topic);
    await h.request("session.close", { session_id: sid });
    await Bun.sleep(5);
  }
  h.fake.queue(toolCalls([{ name: "session_search", arguments: { query: "ORANGE deploy" } }]), text("Found them."));
  const sid = await h.start();
  const ended = await h.turn(sid, "what happened with the orange deploy?");
  expect(ended.status).toBe("completed");
  const done = await h.waitFor("tool.completed", (p) => p.session_id === sid && p.tool === "session_search");
  expect(done.ok).toBe(true);
  expect(done.output).toContain("2 earlier turns match");
  const monday = done.output.indexOf("went fine on monday");
  const friday = done.output.indexOf("failed on friday");
  expect(monday).toBeGreaterThan(-1);
  expect(friday).toBeGreaterThan(monday);
  expect(done.output).not.toContain("unrelated chatter");
  // read_only: no approval was asked
  expect(h.events.some((e) => e.method === "approval.requested")).toBe(false);

  // A chat sender's session has no tools at all: session_search is not offered and a call to it is refused.
  h.fake.queue(toolCalls([{ name: "session_search", arguments: { query: "orange" } }]), text("I cannot search."));
  const started = await h.request("session.start", { cwd: h.workspace, tools: false, channel: { kind: "wechat", account: "bot", conversation: "sender-1" } });
  expect(started.tools).toEqual([]);
  const chatEnded = await h.turn(started.session_id, "what did others talk about?");
  expect(chatEnded.status).toBe("completed");
  const refused = await h.waitFor("tool.completed", (p) => p.session_id === started.session_id);
  expect(refused.ok).toBe(false);
  expect(refused.output).toContain('unknown tool "session_search"');
  expect(refused.output).not.toContain("orange");
  const request = h.fake.requests[h.fake.requests.length - 2]!.body;
  expect(request.tools ?? []).toEqual([]);
});
