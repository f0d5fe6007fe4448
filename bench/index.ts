// The session index and usage ledger at scale. Run with `bun bench/index.ts` (BENCH_SESSIONS, BENCH_TURNS to
// change the size). Over 2,000 generated sessions (about 1M records), each figure is printed with today's scan
// of the session files measured in the same run:
//   search (a rare word, a common word, two words, CJK)   target < 50 ms    vs  the scan (sessions/catalog.ts)
//   list (every session; one workspace's 20 newest)       target < 30 ms    vs  the scan
//   (both in a running process; a new process's first read also checks every session file: printed apart)
//   ledger write per model request (session record + ledger entry)  target < 0.5 ms   vs  the session record alone
//   the index's size next to the session files'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ledger } from "../src/ledger/index";
import { createUsageRecorder } from "../src/ledger/recorder";
import { listSessions, searchSessions } from "../src/sessions/catalog";
import { openSessionStore } from "../src/sessions/index";
import { medianTime } from "./bare";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 2000);
const TURNS = Number(process.env.BENCH_TURNS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

// A vocabulary with a few very common words and a long tail, so queries hit many or few turns.
const COMMON = ["the", "file", "parser", "test", "build", "error"];
const TAIL = Array.from({ length: 5000 }, (_, i) => `w${(i * 7919).toString(36)}x`);
const CJK = ["文件", "日志系统", "配置", "会话", "模型"];
let seed = 42;
const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
const sentence = (words: number) =>
  Array.from({ length: words }, () => {
    const r = rand(100);
    return r < 40 ? COMMON[rand(COMMON.length)] : r < 45 ? CJK[rand(CJK.length)] : TAIL[rand(TAIL.length)];
  }).join(" ");

// BENCH_DIR keeps the generated sessions and their index there for another run (it is not removed).
const kept = process.env.BENCH_DIR;
const root = kept ?? mkdtempSync(join(tmpdir(), "scv-bench-index-"));
try {
  const home = join(root, "home");
  const dir = join(home, "state", "sessions");
  const reuse = kept !== undefined && existsSync(dir);
  mkdirSync(dir, { recursive: true });
  let at = Date.now() - SESSIONS * TURNS * 1000;
  let records = reuse ? SESSIONS * (TURNS * 5 + 1) : 0;
  const t0 = performance.now();
  for (let s = 0; s < (reuse ? 0 : SESSIONS); s++) {
    const id = `s-${s.toString(36).padStart(5, "0")}`;
    const lines = [JSON.stringify({ type: "session", at: at++, v: 1, id, workspace: `/work/project${s % 20}`, provider: "p", model: "m", tools: true })];
    for (let n = 1; n <= TURNS; n++) {
      const turn = `t${n}`;
      const prompt = sentence(12);
      const reply = sentence(40);
      lines.push(JSON.stringify({ type: "turn", at: at++, turn, prompt, origin: { kind: "user" } }));
      lines.push(JSON.stringify({ type: "item", at: at++, turn, item: { role: "user", content: prompt } }));
      lines.push(JSON.stringify({ type: "item", at: at++, turn, item: { role: "assistant", content: "", toolCalls: [{ id: `c${n}`, name: "read", arguments: '{"path":"src/a.ts"}' }] } }));
      lines.push(JSON.stringify({ type: "usage", at: at++, entry: `u-${s}-${n}`, kind: "model", turn, origin: "terminal", provider: "p", model: "m", input_tokens: 1000, cached_input_tokens: 200, output_tokens: 100, reasoning_tokens: 0 }));
      lines.push(JSON.stringify({ type: "turn_ended", at: at++, turn, status: "completed", reply, usage: { input_tokens: 1000, output_tokens: 100, cached_input_tokens: 200 } }));
      records += 5;
    }
    writeFileSync(join(dir, `${id}.jsonl`), `${lines.join("\n")}\n`, { mode: 0o600 });
    records++;
  }
  const sessionBytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  console.log(`${SESSIONS} sessions, ${records.toLocaleString("en-US")} records, ${(sessionBytes / 2 ** 20).toFixed(0)} MiB of session files (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

  const ledger = new Ledger({ home, warn: () => {} });
  const b0 = performance.now();
  await ledger.ready();
  const buildMs = performance.now() - b0;
  const indexBytes = ["", "-wal"].reduce((sum, ext) => {
    try {
      return sum + statSync(join(home, "state", `index.sqlite${ext}`)).size;
    } catch {
      return sum;
    }
  }, 0);
  console.log(`index ${reuse ? "caught up" : "built from scratch"} in ${(buildMs / 1000).toFixed(1)} s; index size ${(indexBytes / 2 ** 20).toFixed(0)} MiB (${((indexBytes / sessionBytes) * 100).toFixed(0)}% of the session files)`);

  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  const warn = () => {};
  const queries = [TAIL[1234]!, "parser", "parser error", "日志系统", `${TAIL[77]} the`];
  for (const q of queries) {
    const indexed = await ledger.search(q, { limit: 10 });
    const scanned = searchSessions(dir, q, { limit: 10 }, warn);
    if (JSON.stringify(indexed) !== JSON.stringify(scanned)) throw new Error(`search ${JSON.stringify(q)}: the index and the scan differ`);
    const ms = await medianTime(() => ledger.search(q, { limit: 10 }), ROUNDS);
    const scanMs = await medianTime(() => searchSessions(dir, q, { limit: 10 }, warn), 1);
    console.log(`search ${JSON.stringify(q).padEnd(18)} ${fmt(ms).padStart(9)} (target < 50 ms)   scan ${fmt(scanMs).padStart(9)}   ratio ${(ms / scanMs).toFixed(4)}`);
  }
  for (const [name, opts] of [["list every session", {}], ["list a workspace's 20", { workspace: "/work/project7", limit: 20 }]] as const) {
    const indexed = await ledger.list(opts);
    if (JSON.stringify(indexed) !== JSON.stringify(listSessions(dir, warn, opts))) throw new Error(`${name}: the index and the scan differ`);
    const ms = await medianTime(() => ledger.list(opts), ROUNDS);
    const scanMs = await medianTime(() => listSessions(dir, warn, opts), 1);
    console.log(`${name.padEnd(25)} ${fmt(ms).padStart(9)} (target < 30 ms)   scan ${fmt(scanMs).padStart(9)}   ratio ${(ms / scanMs).toFixed(4)}`);
  }
  // A new process's first read checks every session file (one lstat each) before it answers.
  const firstMs = await medianTime(async () => {
    const fresh = new Ledger({ home, warn: () => {} });
    await fresh.list({ workspace: "/work/project7", limit: 20 });
    await fresh.close();
  }, 5);
  console.log(`first listing of a new process (opens the index, checks ${SESSIONS} files): ${fmt(firstMs)}`);
  const u0 = performance.now();
  const totals = await ledger.usage({ prices: {} }, { since: 0, by: "day" });
  console.log(`scv usage --by day over ${totals.total.requests.toLocaleString("en-US")} entries: ${fmt(performance.now() - u0)}`);

  // A live session's request: its usage record appended to the session file and its ledger entry written.
  const store = openSessionStore({ home });
  const journal = store.create({ workspace: "/work/live", provider: "p", model: "m", tools: true });
  journal.append({ type: "turn", turn: "t1", prompt: "live", origin: { kind: "user" } });
  const recorder = createUsageRecorder({ ledger, sessionId: journal.id, journal, origin: "terminal", provider: "p", model: "m", config: { prices: {}, limits: {} } });
  const usage = { input_tokens: 1000, output_tokens: 100, cached_input_tokens: 200, reasoning_tokens: 0 };
  const N = 2000;
  const perRequest = await medianTime(async () => {
    for (let i = 0; i < 100; i++) recorder.model(usage);
    await Bun.sleep(0); // lets the queued entries be written
  }, N / 100);
  const recordOnly = await medianTime(() => {
    for (let i = 0; i < 100; i++) journal.append({ type: "usage", entry: `u-x${i}`, kind: "model", origin: "terminal", input_tokens: 1, cached_input_tokens: 0, output_tokens: 1, reasoning_tokens: 0 });
  }, N / 100);
  // One entry at a time, each written in its own transaction: the worst case (no batching).
  const single = await medianTime(async () => {
    recorder.model(usage);
    await Bun.sleep(0);
  }, 200);
  journal.close();
  console.log(
    `ledger write per request: ${(perRequest / 100).toFixed(3)} ms in bursts, ${single.toFixed(3)} ms one at a time (target < 0.5 ms)   session record alone ${(recordOnly / 100).toFixed(3)} ms`,
  );
  await ledger.close();
} finally {
  if (!kept) rmSync(root, { recursive: true, force: true });
}
