// Prompt caching on a kind = "anthropic" profile (issue 53): a 10-turn session, each turn a `read` call and an
// answer, through the in-process server against the fake Messages API over real HTTP on 127.0.0.1. The fake
// prices its prompt cache the way the API does (test/fake/anthropic-checks.ts: a request reads the longest cached
// prefix ending at, or up to 20 blocks before, one of its cache_control breakpoints, and writes one at each
// breakpoint of 1024 tokens or more; 4 characters a token). Reported: the share of input tokens read from the
// cache from turn 2 on (target: at least 85%), every request's share, and the first request's size against the
// same session on the Responses API. Run: bun bench/anthropic-cache.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel, text, toolCalls, type FakeModel } from "../test/fake/model-server";
import { openBenchSession } from "./in-process-session";

const TURNS = 10;

async function session(kind: "anthropic" | "responses"): Promise<{ fake: FakeModel; turnOf: number[] }> {
  const fake = await startFakeModel();
  const root = mkdtempSync(join(tmpdir(), "scv-bench-acache-"));
  try {
    const home = join(root, "home");
    const workspace = join(root, "ws");
    mkdirSync(home);
    mkdirSync(workspace);
    writeFileSync(join(workspace, "notes.txt"), "a line of project notes with some words and numbers 0123456789\n".repeat(60));
    const profile = kind === "anthropic" ? `kind = "anthropic"\nbase_url = "${fake.anthropicUrl}"\napi_key = "sk-ant-bench"\n` : `base_url = "${fake.url}"\n`;
    writeFileSync(join(home, "config.toml"), `[provider]\nactive = "p"\n[providers.p]\n${profile}model = "claude-sonnet-4-5"\nmax_retries = 0\n`);
    const s = await openBenchSession({ scvHome: home, workspace, fetch });
    const turnOf: number[] = [];
    for (let t = 1; t <= TURNS; t++) {
      fake.queue(toolCalls([{ name: "read", arguments: { path: "notes.txt" } }], { text: `Turn ${t}: reading the notes.` }), text(`Turn ${t}: the notes say what they say, in ${t} words or so.`));
      const before = fake.requests.length;
      await s.turn(`Question ${t}: what do the notes say about item ${t}?`);
      for (let i = before; i < fake.requests.length; i++) turnOf.push(t);
    }
    await s.close();
    return { fake, turnOf };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const a = await session("anthropic");
const r = await session("responses");
const rows = a.fake.requests.map((q, i) => {
  const c = q.cache!;
  const total = c.input_tokens + c.cache_creation_input_tokens + c.cache_read_input_tokens;
  return { turn: a.turnOf[i]!, total, read: c.cache_read_input_tokens, write: c.cache_creation_input_tokens };
});
console.log("request turn  input  read  write  read share");
rows.forEach((x, i) => console.log(`${String(i + 1).padStart(7)} ${String(x.turn).padStart(4)} ${String(x.total).padStart(6)} ${String(x.read).padStart(5)} ${String(x.write).padStart(6)}  ${((100 * x.read) / x.total).toFixed(1)}%`));
const later = rows.filter((x) => x.turn >= 2);
const share = later.reduce((n, x) => n + x.read, 0) / later.reduce((n, x) => n + x.total, 0);
const fromSecond = rows.slice(1);
const share2 = fromSecond.reduce((n, x) => n + x.read, 0) / fromSecond.reduce((n, x) => n + x.total, 0);
const size = (f: FakeModel) => JSON.stringify(f.requests[0]!.body).length;
console.log(`\nturns 2-${TURNS}: ${(100 * share).toFixed(1)}% of input tokens read from the cache (target >= 85%)`);
console.log(`requests 2-${rows.length}: ${(100 * share2).toFixed(1)}% read from the cache`);
console.log(`first request: Anthropic Messages ${size(a.fake)} bytes, Responses ${size(r.fake)} bytes (${((100 * size(a.fake)) / size(r.fake)).toFixed(1)}%)`);
console.log(`requests: Anthropic ${a.fake.requests.length}, Responses ${r.fake.requests.length}`);
await a.fake.close();
await r.fake.close();
if (share < 0.85) process.exitCode = 1;
