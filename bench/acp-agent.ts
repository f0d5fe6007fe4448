// `scv acp` start-up against `scv server --stdio`, both the compiled binary in this same run: spawn → `initialize`
// answered, and spawn → first model request after the session is opened and a prompt sent at once (ACP:
// initialize, session/new, session/prompt; the protocol server: initialize, session.start, turn.start).
// Target: `scv acp` answers `initialize` within 2x of `scv server --stdio`.
// Only loopback traffic: the model is the scripted fake endpoint on 127.0.0.1.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeModel, text } from "../test/fake/model-server";
import { median } from "./bare";

const RUNS = Number(process.env.RUNS ?? 20);
const scv = process.env.SCV_BIN ? resolve(process.env.SCV_BIN) : join(import.meta.dir, "..", "dist", "scv");
const dir = mkdtempSync(join(tmpdir(), "scv-bench-acp-"));
let firstRequestAt = 0;
const fake = await startFakeModel({
  onRequest: () => {
    firstRequestAt ||= performance.now();
  },
});
const home = join(dir, "scv-home");
const workspace = join(dir, "ws");
mkdirSync(home, { recursive: true });
mkdirSync(workspace, { recursive: true });
writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\napi_key = "k"\nmax_retries = 0\n`);
const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home"), SCV_HOME: home };

interface Dialect {
  argv: string[];
  initialize: unknown;
  open: (id: number) => { method: string; params: unknown };
  /** The session ID in the open request's result. */
  sessionOf: (result: any) => string;
  prompt: (session: string) => { method: string; params: unknown };
  /** The message that ends the run: the prompt's result or the turn's end. */
  ended: (msg: any) => boolean;
}

const ACP: Dialect = {
  argv: ["acp"],
  initialize: { protocolVersion: 1, clientCapabilities: {} },
  open: () => ({ method: "session/new", params: { cwd: workspace, mcpServers: [] } }),
  sessionOf: (r) => r.sessionId,
  prompt: (s) => ({ method: "session/prompt", params: { sessionId: s, prompt: [{ type: "text", text: "hello" }] } }),
  ended: (m) => m.id === 3,
};
const STDIO: Dialect = {
  argv: ["server", "--stdio"],
  initialize: { protocol_version: 3 },
  open: () => ({ method: "session.start", params: { cwd: workspace } }),
  sessionOf: (r) => r.session_id,
  prompt: (s) => ({ method: "turn.start", params: { session_id: s, prompt: "hello" } }),
  ended: (m) => m.method === "turn.ended",
};

async function run(d: Dialect): Promise<{ initialized: number; firstRequest: number }> {
  fake.queue(text("hi"));
  firstRequestAt = 0;
  const t0 = performance.now();
  const p = Bun.spawn([scv, ...d.argv], { env, cwd: workspace, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const send = (id: number, method: string, params: unknown) => {
    p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    p.stdin.flush();
  };
  send(1, "initialize", d.initialize);
  const open = d.open(2);
  send(2, open.method, open.params);
  let initialized = 0;
  let buf = "";
  const decoder = new TextDecoder();
  outer: for await (const chunk of p.stdout) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (msg.id === 1) initialized = performance.now() - t0;
      if (msg.id === 2) {
        const prompt = d.prompt(d.sessionOf(msg.result));
        send(3, prompt.method, prompt.params);
      }
      if (d.ended(msg)) break outer;
    }
  }
  const firstRequest = firstRequestAt - t0;
  p.stdin.end();
  await p.exited;
  return { initialized, firstRequest };
}

const results = { acp: { init: [] as number[], first: [] as number[] }, stdio: { init: [] as number[], first: [] as number[] } };
try {
  for (let i = 0; i < RUNS; i++) {
    const s = await run(STDIO);
    results.stdio.init.push(s.initialized);
    results.stdio.first.push(s.firstRequest);
    const a = await run(ACP);
    results.acp.init.push(a.initialized);
    results.acp.first.push(a.firstRequest);
  }
} finally {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
const line = (label: string, xs: number[]) => console.log(`${label.padEnd(52)} ${median(xs).toFixed(1).padStart(6)} ms`);
console.log(`runs: ${RUNS} (medians)`);
line("scv server --stdio: spawn → initialize answered", results.stdio.init);
line("scv acp:            spawn → initialize answered", results.acp.init);
line("scv server --stdio: spawn → first model request", results.stdio.first);
line("scv acp:            spawn → first model request", results.acp.first);
console.log(`initialize: acp ${ratio(results.acp.init, results.stdio.init)}x server --stdio (target: within 2x)`);
console.log(`first model request: acp ${ratio(results.acp.first, results.stdio.first)}x server --stdio`);
