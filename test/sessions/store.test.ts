// The session store on a real directory: records written as they happen, read back after a simulated crash
// (torn tail, unended turn), compaction replay, conversations and jobs, listing, search, removal and retention.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSessionStore, type SessionStore } from "../../src/sessions/index";
import { loadSession } from "../../src/sessions/load";
import { alive } from "../fake/proc";

let root: string;
let store: SessionStore;
const warnings: string[] = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "scv-sessions-"));
  store = openSessionStore({ home: root, warn: (m) => warnings.push(m) });
  warnings.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const usage = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0 };
const header = (workspace = "/ws") => ({ workspace, provider: "fake", model: "m1", tools: true });

function turn(rec: ReturnType<SessionStore["create"]>, id: string, prompt: string, reply: string, ended = true) {
  rec.append({ type: "turn", turn: id, prompt, origin: { kind: "user" } });
  rec.append({ type: "item", turn: id, item: { role: "user", content: prompt } });
  if (!ended) return;
  rec.append({ type: "item", turn: id, item: { role: "assistant", content: reply } });
  rec.append({ type: "turn_ended", turn: id, status: "completed", reply, usage });
}

test("records are read back in order; files are 0600 in a 0700 directory", () => {
  const rec = store.create(header(), { secrets: ["sk-secret-value-123"] });
  turn(rec, "t1", "first question", "first answer");
  turn(rec, "t2", "echo sk-secret-value-123", "it printed the key");
  rec.close();
  const file = join(store.dir, `${rec.id}.jsonl`);
  expect(statSync(store.dir).mode & 0o777).toBe(0o700);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(file, "utf8")).not.toContain("sk-secret-value-123");
  const s = store.load(rec.id);
  expect(s.header).toMatchObject({ id: rec.id, workspace: "/ws", provider: "fake", model: "m1", tools: true });
  expect(s.turns.map((t) => [t.turn_id, t.status, t.reply])).toEqual([
    ["t1", "completed", "first answer"],
    ["t2", "completed", "it printed the key"],
  ]);
  expect(s.history).toEqual([
    { role: "user", content: "first question" },
    { role: "assistant", content: "first answer" },
    { role: "user", content: "echo ***" },
    { role: "assistant", content: "it printed the key" },
  ]);
  expect(s.warnings).toEqual([]);
});

test("after a crash: the unended turn is interrupted and left out of history, a torn tail is skipped with a warning and cut on resume", () => {
  const rec = store.create(header());
  turn(rec, "t1", "done turn", "done reply");
  turn(rec, "t2", "cut-off turn", "", false);
  const file = join(store.dir, `${rec.id}.jsonl`);
  // What a SIGKILL in the middle of a write leaves: the start of a record with no newline.
  appendFileSync(file, '{"type":"item","at":1,"turn":"t2","item":{"role":"assistant","cont');
  const s = loadSession(file);
  expect(s.turns.map((t) => [t.turn_id, t.status])).toEqual([
    ["t1", "completed"],
    ["t2", "interrupted"],
  ]);
  expect(s.history).toEqual([
    { role: "user", content: "done turn" },
    { role: "assistant", content: "done reply" },
  ]);
  expect(s.warnings.join("\n")).toContain("torn last record");

  rec.close(); // the dead process's lock would be stale; here it is simply released
  const { loaded, recorder } = store.resume(rec.id, (l) => ({ provider: l.provider, model: "m2" }));
  expect(loaded.turns[1]!.status).toBe("interrupted");
  turn(recorder, "t3", "after the crash", "works");
  recorder.close();
  const again = loadSession(file);
  expect(again.warnings).toEqual([]);
  expect(again.model).toBe("m2");
  expect(again.turns.map((t) => [t.turn_id, t.status])).toEqual([
    ["t1", "completed"],
    ["t2", "interrupted"],
    ["t3", "completed"],
  ]);
  expect(again.history.map((i) => i.content)).toEqual(["done turn", "done reply", "after the crash", "works"]);
});

test("a corrupt record in the middle is skipped with a warning; earlier and later records survive", () => {
  const rec = store.create(header());
  turn(rec, "t1", "one", "1");
  rec.close();
  const file = join(store.dir, `${rec.id}.jsonl`);
  appendFileSync(file, "{not json\n");
  const { recorder } = store.resume(rec.id, (l) => l);
  turn(recorder, "t2", "two", "2");
  recorder.close();
  const s = loadSession(file);
  expect(s.turns.map((t) => t.reply)).toEqual(["1", "2"]);
  expect(s.warnings.some((w) => w.includes("not valid JSON"))).toBe(true);
});

test("a compaction replaces the originals in the replayed history and keeps them for the transcript", () => {
  const rec = store.create(header());
  turn(rec, "t1", "one", "1");
  turn(rec, "t2", "two", "2");
  const replaced = [
    { role: "user", content: "one" },
    { role: "assistant", content: "1" },
  ];
  rec.compacted({ summary: [{ type: "compaction", summary: "the user said one" }], replaced, start: 0 });
  // A record that does not match what it claims to replace is refused, not applied blindly.
  rec.compacted({ summary: [{ type: "compaction", summary: "bogus" }], replaced: [{ role: "user", content: "never said" }], start: 0 });
  rec.close();
  const s = store.load(rec.id);
  expect(s.history).toEqual([{ type: "compaction", summary: "the user said one" }, { role: "user", content: "two" }, { role: "assistant", content: "2" }]);
  expect(s.compactions[0]!.replaced).toEqual(replaced);
  expect(s.warnings.join("\n")).toContain("does not match");
});

test("conversations and jobs: the latest record wins, ended ones are gone, unfinished jobs are interrupted", () => {
  const rec = store.create(header());
  turn(rec, "t1", "delegate", "ok");
  const conv = { handle: "codex-1", agent: "codex", cwd: "/ws", cli_session_id: "thread-1", turns: 1, last_used: 5 };
  rec.append({ type: "conversation", ...conv });
  rec.append({ type: "conversation", ...conv, turns: 2 });
  rec.append({ type: "conversation", ...conv, handle: "codex-2", cli_session_id: "thread-2" });
  rec.append({ type: "conversation_ended", handle: "codex-2" });
  rec.append({ type: "job_started", job: "job-1", agent: "codex" });
  rec.append({ type: "job_finished", job: "job-1", agent: "codex", status: "completed", started_at: 1, finished_at: 2, result: { reply: "r" } });
  rec.append({ type: "job_started", job: "job-2", agent: "codex", conversation: "codex-1" });
  rec.close();
  const s = store.load(rec.id);
  expect(s.conversations).toEqual([{ ...conv, turns: 2 }]);
  expect(s.jobs.map((j) => [j.job, j.status])).toEqual([
    ["job-1", "completed"],
    ["job-2", "interrupted"],
  ]);
});

test("a session open in another live process cannot be resumed or removed; a dead owner's lock is taken over", async () => {
  const rec = store.create(header());
  turn(rec, "t1", "q", "a");
  rec.close();
  const sleeper = Bun.spawn(["sleep", "30"]);
  try {
    const stat = readFileSync(`/proc/${sleeper.pid}/stat`, "utf8");
    const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
    writeFileSync(join(store.dir, `${rec.id}.lock`), JSON.stringify({ pid: sleeper.pid, start_time: startTime }));
    expect(() => store.resume(rec.id, (l) => l)).toThrow(`open in another SCV process (pid ${sleeper.pid})`);
    expect(() => store.remove(rec.id)).toThrow("open in a running SCV process");
  } finally {
    sleeper.kill("SIGKILL");
    await sleeper.exited;
  }
  expect(alive(sleeper.pid)).toBe(false);
  const { recorder } = store.resume(rec.id, (l) => l);
  expect(() => store.resume(rec.id, (l) => l)).toThrow("already open in this SCV process");
  recorder.close();
  store.remove(rec.id);
  expect(store.list({})).toEqual([]);
});

test("list: newest first, this workspace only unless asked; a new session with no turn is not kept", () => {
  const a = store.create(header("/ws-a"));
  turn(a, "t1", "alpha question\nsecond line", "x");
  a.close();
  const b = store.create(header("/ws-b"));
  turn(b, "t1", "beta question", "y");
  turn(b, "t2", "more", "z");
  b.close();
  store.create(header("/ws-a")).close();
  utimesSync(join(store.dir, `${a.id}.jsonl`), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  const all = store.list();
  expect(all.map((s) => [s.id, s.turns, s.first_prompt])).toEqual([
    [b.id, 2, "beta question"],
    [a.id, 1, "alpha question"],
  ]);
  expect(store.list({ workspace: "/ws-a" }).map((s) => s.id)).toEqual([a.id]);
  expect(store.list({ limit: 1 }).map((s) => s.id)).toEqual([b.id]);
});

test("search: every word, case-insensitive, newest first, excluding the asking session, bounded by limit", () => {
  const ids: string[] = [];
  for (const [i, [prompt, reply]] of [
    ["deploy the Blue service", "done"],
    ["what colour is the sky", "BLUE, and the service is up"],
    ["blue only", "no match here"],
  ].entries()) {
    const rec = store.create(header(`/ws-${i}`));
    turn(rec, "t1", prompt!, reply!);
    rec.close();
    ids.push(rec.id);
    Bun.sleepSync(5);
  }
  const hits = store.search("blue SERVICE", { limit: 10 });
  expect(hits.map((h) => h.session_id)).toEqual([ids[1]!, ids[0]!]);
  expect(hits[0]!.excerpt.toLowerCase()).toContain("blue");
  expect(store.search("blue service", { limit: 1 }).map((h) => h.session_id)).toEqual([ids[1]!]);
  expect(store.search("blue service", { limit: 10, exclude: ids[1] }).map((h) => h.session_id)).toEqual([ids[0]!]);
  expect(store.search("   ", { limit: 10 })).toEqual([]);
});

test("retention: sessions idle longer than keep_days are pruned, open ones never", () => {
  const old = store.create(header());
  turn(old, "t1", "old", "old");
  old.close();
  const open = store.create(header());
  turn(open, "t1", "open", "open");
  const recent = store.create(header());
  turn(recent, "t1", "recent", "recent");
  recent.close();
  const longAgo = new Date(Date.now() - 91 * 86_400_000);
  for (const id of [old.id, open.id]) utimesSync(join(store.dir, `${id}.jsonl`), longAgo, longAgo);
  expect(store.prune(90)).toBe(1);
  expect(store.list().map((s) => s.id).sort()).toEqual([open.id, recent.id].sort());
  open.close();
});

test("a session file that is a FIFO or too short to be a session is refused with a clear error", () => {
  const rec = store.create(header());
  turn(rec, "t1", "q", "a");
  rec.close();
  const file = join(store.dir, `${rec.id}.jsonl`);
  truncateSync(file, 10);
  expect(() => store.load(rec.id)).toThrow("is not an SCV session file");
  rmSync(file);
  Bun.spawnSync(["mkfifo", file]);
  expect(() => store.load(rec.id)).toThrow("FIFO");
  expect(store.list()).toEqual([]);
  expect(warnings.some((w) => w.includes("FIFO"))).toBe(true);
});
