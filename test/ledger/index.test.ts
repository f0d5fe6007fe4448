// The session index answers as a scan of the session files does, catches up with what was written after it
// (a crash between a session write and its index update loses nothing), survives corruption, and keeps the
// usage ledger exact: an entry written directly and caught up from its session file counts once.
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ledger } from "../../src/ledger/index";
import { listSessions, SEARCHED_CHARS, searchSessions } from "../../src/sessions/catalog";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home(): { home: string; dir: string } {
  const h = mkdtempSync(join(tmpdir(), "scv-ledger-"));
  homes.push(h);
  const dir = join(h, "state", "sessions");
  mkdirSync(dir, { recursive: true });
  return { home: h, dir };
}

const WORDS = ["parser", "tree", "Token", "ünïcode", "文件系统", "日志", "go", "db", "cache", "Kubernetes", "deploy", "rust", "x"];
let clock = 1_700_000_000_000;

/** A session file written record by record, as the store writes them, with distinct times. */
function writeSession(dir: string, id: string, workspace: string, turns: number, seed: number): string {
  const file = join(dir, `${id}.jsonl`);
  const lines = [JSON.stringify({ type: "session", at: clock++, v: 1, id, workspace, provider: "p", model: "m", tools: true })];
  for (let n = 1; n <= turns; n++) {
    const pick = (k: number) => WORDS[(seed * 7 + n * 3 + k) % WORDS.length]!;
    const prompt = `Question ${n}: ${pick(0)} and ${pick(1)}\nsecond line ${pick(2)}`;
    lines.push(JSON.stringify({ type: "turn", at: clock++, turn: `t${n}`, prompt, origin: n % 5 === 0 ? { kind: "background", jobs: [] } : { kind: "user" } }));
    lines.push(JSON.stringify({ type: "item", at: clock++, turn: `t${n}`, item: { role: "user", content: prompt } }));
    if (n % 4 !== 3) {
      lines.push(
        JSON.stringify({ type: "turn_ended", at: clock++, turn: `t${n}`, status: "completed", reply: `Answer about ${pick(3)} ${pick(4)}`, usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 } }),
      );
    }
  }
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}

function usageRecord(entry: string, kind: "model" | "agent", input: number, output: number, extra: Record<string, unknown> = {}) {
  return `${JSON.stringify({ type: "usage", at: clock++, entry, kind, origin: "exec", input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_tokens: 0, ...extra })}\n`;
}

const QUERIES = ["parser", "PARSER tree", "token", "文件系统", "日志", "go", "db cache", "ünïcode", "question 1", "answer rust", "nothing-like-this", "x", "kubernetes deploy second"];

describe("session index", () => {
  test("listing and search give exactly the scan's results", async () => {
    const { home: h, dir } = home();
    for (let i = 0; i < 24; i++) writeSession(dir, `s-${i.toString(36).padStart(4, "0")}`, i % 3 === 0 ? "/ws/a" : "/ws/b", 3 + (i % 9), i);
    const ledger = new Ledger({ home: h, warn: () => {} });
    for (const q of QUERIES) {
      for (const opts of [{ limit: 50 }, { limit: 3 }, { limit: 50, exclude: "s-0003" }]) {
        expect(await ledger.search(q, opts)).toEqual(searchSessions(dir, q, opts, () => {}));
      }
    }
    expect((await ledger.search("parser", { limit: 500 })).length).toBeGreaterThan(5);
    for (const opts of [{}, { workspace: "/ws/a" }, { limit: 5 }, { workspace: "/ws/b", limit: 2 }]) {
      expect(await ledger.list(opts)).toEqual(listSessions(dir, () => {}, opts));
    }
    await ledger.close();
  });

  test("what was written after the index was built is caught up; a torn last record waits for its end", async () => {
    const { home: h, dir } = home();
    const file = writeSession(dir, "s-aaaa", "/ws", 2, 1);
    const ledger = new Ledger({ home: h, warn: () => {} });
    expect(await ledger.search("zebracorn", { limit: 10 })).toEqual([]);
    const turn = JSON.stringify({ type: "turn", at: clock++, turn: "t9", prompt: "about the zebracorn", origin: { kind: "user" } });
    appendFileSync(file, turn.slice(0, 20)); // a write cut off mid-record
    ledger.touched("s-aaaa"); // as this process's session writer says after a turn
    expect(await ledger.search("zebracorn", { limit: 10 })).toEqual([]);
    appendFileSync(file, `${turn.slice(20)}\n`);
    ledger.touched("s-aaaa");
    expect((await ledger.search("zebracorn", { limit: 10 })).map((x) => x.turn_id)).toEqual(["t9"]);
    // Another process appended and died before telling any index: the next start catches up.
    appendFileSync(file, `${JSON.stringify({ type: "turn_ended", at: clock++, turn: "t9", status: "completed", reply: "and the unicorn", usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 } })}\n`);
    await ledger.close();
    const next = new Ledger({ home: h, warn: () => {} });
    expect(await next.search("zebracorn unicorn", { limit: 10 })).toEqual(searchSessions(dir, "zebracorn unicorn", { limit: 10 }, () => {}));
    expect((await next.list({}))[0]!.turns).toBe(3);
    // A removed session leaves the listing and the search (the directory changed: a full catch-up).
    unlinkSync(file);
    expect(await next.list({})).toEqual([]);
    expect(await next.search("zebracorn", { limit: 10 })).toEqual([]);
    await next.close();
  });

  test("a corrupt index is rebuilt with a notice; a replaced file is read again from its start", async () => {
    const { home: h, dir } = home();
    writeSession(dir, "s-bbbb", "/ws", 4, 2);
    const first = new Ledger({ home: h, warn: () => {} });
    const before = await first.search("answer", { limit: 50 });
    expect(before.length).toBeGreaterThan(0);
    await first.close();
    const indexFile = join(h, "state", "index.sqlite");
    expect(statSync(indexFile).mode & 0o777).toBe(0o600);
    writeFileSync(indexFile, "this is not a database".repeat(200));
    const notes: string[] = [];
    const second = new Ledger({ home: h, warn: (m) => notes.push(m) });
    expect(await second.search("answer", { limit: 50 })).toEqual(before);
    expect(notes.join("\n")).toMatch(/unreadable.*rebuilding it from the session files/);
    await second.close();
    // The same ID written anew (another file): its old turns are gone from the index at the next start.
    unlinkSync(join(dir, "s-bbbb.jsonl"));
    writeSession(dir, "s-bbbb", "/ws", 1, 5);
    const third = new Ledger({ home: h, warn: () => {} });
    expect(await third.search("answer", { limit: 50 })).toEqual(searchSessions(dir, "answer", { limit: 50 }, () => {}));
    await third.close();
  });

  test("ledger entries count once whether written directly or caught up, and outlive their session file", async () => {
    const { home: h, dir } = home();
    const file = writeSession(dir, "s-cccc", "/ws", 1, 3);
    const ledger = new Ledger({ home: h, warn: () => {} });
    appendFileSync(file, usageRecord("u-1", "model", 100, 10, { provider: "p", model: "m" }) + usageRecord("u-2", "agent", 40, 4, { agent: "claude", transport: "process" }));
    // The first entry also arrives directly, as a live session writes it.
    ledger.record({ session: "s-cccc", entry: "u-1", at: clock, kind: "model", origin: "exec", provider: "p", model: "m", input: 100, cached: 0, output: 10, reasoning: 0 });
    const byAgent = await ledger.usage({ prices: {} }, { since: 0, by: "agent" });
    expect(byAgent.rows.map((r) => [r.key, r.input_tokens, r.output_tokens, r.requests])).toEqual([
      ["scv (own model)", 100, 10, 1],
      ["claude", 40, 4, 1],
    ]);
    unlinkSync(file);
    expect((await ledger.usage({ prices: {} }, { since: 0, by: "session" })).total.input_tokens).toBe(140);
    await ledger.reindex();
    expect((await ledger.usage({ prices: {} }, { since: 0, by: "session" })).total.input_tokens).toBe(140);
    await ledger.close();
  });

  test("a locked index never fails a write: the entry is queued and written once the lock is gone", async () => {
    const { home: h } = home();
    const ledger = new Ledger({ home: h, warn: () => {} });
    await ledger.ready();
    const other = new Database(join(h, "state", "index.sqlite"));
    other.run("BEGIN IMMEDIATE");
    const started = performance.now();
    ledger.record({ session: "s-dddd", entry: "u-9", at: clock, kind: "model", origin: "terminal", input: 7, cached: 0, output: 3, reasoning: 0 });
    expect(performance.now() - started).toBeLessThan(500); // the call itself, not the 2 s a reader may wait
    await Bun.sleep(10);
    expect((other.query("SELECT count(*) AS n FROM ledger").get() as { n: number }).n).toBe(0);
    other.run("COMMIT");
    other.close();
    // The retry (1 s later) writes it: waited for, bounded (a fixed 1.3 s was tight on a busy machine).
    const check = new Database(join(h, "state", "index.sqlite"), { readonly: true });
    const row = () => check.query("SELECT input, output FROM ledger WHERE entry = 'u-9'").get();
    for (const end = Date.now() + 25_000; !row() && Date.now() < end; ) await Bun.sleep(50);
    expect(row()).toEqual({ input: 7, output: 3 });
    check.close();
    await ledger.close();
  });

  test("a tool's 8 MB arguments are not indexed; prompts and replies are searched up to SEARCHED_CHARS, as the scan does, with no key half-masked at the cut", async () => {
    const { home: h, dir } = home();
    const file = writeSession(dir, "s-big0", "/ws", 1, 2);
    const key = `sk-proj-${"A1b2C3d4".repeat(6)}`;
    const prompt = `early-word ${"p".repeat(SEARCHED_CHARS - 24)} ${key} ${"q".repeat(200)} late-word`; // the key starts 12 characters before the cut
    const lines = [
      JSON.stringify({ type: "turn", at: clock++, turn: "t2", prompt, origin: { kind: "user" } }),
      JSON.stringify({ type: "item", at: clock++, turn: "t2", item: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "write", arguments: JSON.stringify({ path: "x", content: "argword ".repeat(1 << 20) }) }] } }),
      JSON.stringify({ type: "turn_ended", at: clock++, turn: "t2", status: "completed", reply: `reply-start ${"r".repeat(SEARCHED_CHARS)} reply-late`, usage: {} }),
    ];
    appendFileSync(file, `${lines.join("\n")}\n${usageRecord("u-big", "model", 5, 6, { turn: "t2" })}`);
    const ledger = new Ledger({ home: h, warn: () => {} });
    for (const q of ["early-word", "late-word", "argword", "reply-start", "reply-late", "sk-proj", "A1b2C3d4"]) {
      expect(await ledger.search(q, { limit: 10 })).toEqual(searchSessions(dir, q, { limit: 10 }, () => {}));
    }
    expect((await ledger.search("early-word", { limit: 10 })).map((x) => x.turn_id)).toEqual(["t2"]);
    expect((await ledger.search("reply-start", { limit: 10 })).map((x) => x.turn_id)).toEqual(["t2"]);
    expect(await ledger.search("late-word", { limit: 10 })).toEqual([]);
    expect(await ledger.search("argword", { limit: 10 })).toEqual([]);
    // The key straddles the cut: masked whole before it, so not even its start is found.
    expect(await ledger.search("sk-proj", { limit: 10 })).toEqual([]);
    const check = new Database(join(h, "state", "index.sqlite"));
    expect(check.query("SELECT input, output FROM ledger WHERE entry = 'u-big'").get()).toEqual({ input: 5, output: 6 });
    expect((check.query("SELECT max(length(text)) AS n FROM turn_text").get() as { n: number }).n).toBeLessThanOrEqual(2 * SEARCHED_CHARS + 1);
    check.close();
    await ledger.close();
  });
});
