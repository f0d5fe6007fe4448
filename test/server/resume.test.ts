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
