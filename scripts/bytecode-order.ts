// Records which bytecode dist/scv runs when it starts, for scripts/build.ts to lay that bytecode out together at
// the front of the binary (bun's --bytecode-order): a nested SCV child then reaches its first model request
// about 10% sooner. Run it after changes to what start-up runs: `bun scripts/bytecode-order.ts`, then rebuild.
// A profile from an older build still applies; functions it does not name are simply placed after it.
//
// The starts recorded, most important first: `scv server --stdio` through its first model request (as a parent
// SCV starts a nested child) and `scv exec` through its first request (`--version` already starts as fast as a
// bare binary). The model is the scripted fake endpoint on 127.0.0.1; nothing leaves the machine.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel, text } from "../test/fake/model-server";

const root = join(import.meta.dir, "..");
const outDir = join(import.meta.dir, "bytecode-order");
const scv = join(root, "dist", "scv");

const build = Bun.spawnSync([process.execPath, join(import.meta.dir, "build.ts")], { stdout: "inherit", stderr: "inherit" });
if (!build.success) process.exit(1);

const dir = mkdtempSync(join(tmpdir(), "scv-order-"));
const fake = await startFakeModel();
try {
  const home = join(dir, "scv-home");
  const workspace = join(dir, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\napi_key = "k"\nmax_retries = 0\n`);
  mkdirSync(outDir, { recursive: true });
  const base = { PATH: process.env.PATH ?? "", HOME: join(dir, "home"), SCV_HOME: home };
  const env = (name: string, depth: string) => ({ ...base, SCV_DELEGATION_DEPTH: depth, BUN_BYTECODE_ORDER_OUT: join(outDir, `${name}.txt`) });

  // A warm-up run first, so the recorded ones find the configuration check cache in place, as real starts do.
  fake.queue(text("hi"));
  await run(["exec", "hello"], base, workspace);

  fake.queue(text("hi"));
  await nestedChild(env("server-stdio", "1"), workspace);
  fake.queue(text("hi"));
  await run(["exec", "hello"], env("exec", "0"), workspace);
  console.log(`wrote ${outDir}/{server-stdio,exec}.txt; run bun run build to use them`);
} finally {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Runs dist/scv to its exit, asynchronously: the fake endpoint answers from this same process. */
async function run(args: string[], env: Record<string, string>, cwd: string): Promise<void> {
  const p = Bun.spawn([scv, ...args], { env, cwd, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([p.exited, new Response(p.stderr).text(), new Response(p.stdout).text()]);
  if (code !== 0) throw new Error(`scv ${args.join(" ")} exited with ${code}: ${stderr}`);
}

/** initialize, session.start at depth 1 and one turn, then EOF: what a parent SCV does with a nested child. */
async function nestedChild(env: Record<string, string>, cwd: string): Promise<void> {
  const p = Bun.spawn([scv, "server", "--stdio"], { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const send = (id: number, method: string, params: unknown) => p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  send(1, "initialize", { protocol_version: 3 });
  send(2, "session.start", { cwd, delegation_depth: 1 });
  p.stdin.flush();
  const decoder = new TextDecoder();
  let buf = "";
  reading: for await (const chunk of p.stdout) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (msg.id === 2) {
        send(3, "turn.start", { session_id: msg.result.session_id, prompt: "hello" });
        p.stdin.flush();
      }
      if (msg.method === "turn.ended") break reading;
    }
  }
  p.stdin.end();
  if ((await p.exited) !== 0) throw new Error("scv server --stdio did not exit cleanly");
}
