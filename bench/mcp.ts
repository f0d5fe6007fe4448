// MCP servers, measured against a baseline taken in this same run (machines are noisy):
// 1. Session start → first model request offering the MCP tools, through `dist/scv server --stdio` with
//    server-everything over stdio (connect approved by auto_approve), against the same with no server configured;
//    its tool list unknown each time (state/mcp-tools.json removed), so the server is started and listed.
//    The difference is the server's own start-up plus SCV's connect, approval and listing.
// 2. Per call: server-everything's `echo` called through SCV's path (the tool's assess and run: the runner
//    transport, the bounded reader, result conversion and scrubbing) against the same server called directly with
//    the SDK's Client and its own StdioClientTransport. Target: under 1.2x.
//    SCV's runner starts every child in its own session (setsid), which on a kernel with scheduler autogroups
//    (/proc/sys/kernel/sched_autogroup_enabled) also puts it in its own scheduling group: on a loaded machine
//    each wake-up of the server then waits longer, whoever its client is. So the SDK's direct calls are measured
//    twice, with the server as the SDK starts it and with it started through `setsid` like SCV's, and the
//    ratio against the latter is SCV's own overhead.
// Only loopback traffic: the model is the scripted fake endpoint on 127.0.0.1.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpConnection } from "../src/mcp/connection";
import { launchOf } from "../src/mcp/launch";
import { mcpTool } from "../src/mcp/tool";
import { McpServerConfig } from "../src/config/schema";
import { loadConfig } from "../src/config/load";
import type { SessionScope } from "../src/scope";
import type { ToolCallContext } from "../src/tools/tool";
import { startFakeModel, text } from "../test/fake/model-server";
import { EVERYTHING, JS_RUNTIME, serverToml } from "../test/fake/mcp-servers";
import { median } from "./bare";

const RUNS = Number(process.env.RUNS ?? 5);
const CALLS = Number(process.env.CALLS ?? 600);
const scv = join(import.meta.dir, "..", "dist", "scv");
const root = mkdtempSync(join(tmpdir(), "scv-bench-mcp-"));
const fake = await startFakeModel({ respond: () => text("ok") });

function home(name: string, extra: string): { env: Record<string, string>; workspace: string } {
  const h = join(root, name);
  const workspace = join(h, "ws");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(h, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n${extra}`);
  return { env: { PATH: process.env.PATH ?? "", HOME: h, SCV_HOME: h }, workspace };
}

/** ms from session.start's answer to the first model request, and the tool names it offered. */
async function sessionToFirstRequest(env: Record<string, string>, workspace: string): Promise<{ ms: number; tools: string[] }> {
  const p = Bun.spawn([scv, "server", "--stdio"], { env, cwd: workspace, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const reader = p.stdout.getReader();
  let buf = "";
  const next = async (id: number) => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const line = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (line.id === id) return line;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("server exited");
      buf += new TextDecoder().decode(value);
    }
  };
  const send = (id: number, method: string, params: unknown) => {
    p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    p.stdin.flush();
  };
  send(1, "initialize", { protocol_version: 3 });
  await next(1);
  const before = fake.requests.length;
  send(2, "session.start", { cwd: workspace, auto_approve: true });
  const sid = (await next(2)).result.session_id;
  const t0 = performance.now();
  send(3, "turn.start", { session_id: sid, prompt: "hi" });
  while (fake.requests.length === before) await Bun.sleep(1);
  const ms = performance.now() - t0;
  const tools = (fake.requests[before]!.body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
  p.kill("SIGTERM");
  await p.exited;
  return { ms, tools };
}

const plain = home("plain", "");
const withMcp = home("mcp", serverToml("everything", { command: JS_RUNTIME, args: [EVERYTHING, "stdio"] }));
const base: number[] = [];
const mcp: number[] = [];
for (let i = 0; i < RUNS; i++) {
  base.push((await sessionToFirstRequest(plain.env, plain.workspace)).ms);
  // The list unknown, so the server starts and is listed before the first request (bench/mcp-start.ts measures
  // the run that offers a known list without starting it).
  rmSync(join(withMcp.env.SCV_HOME, "state", "mcp-tools.json"), { force: true });
  const r = await sessionToFirstRequest(withMcp.env, withMcp.workspace);
  if (!r.tools.includes("everything__echo")) throw new Error(`MCP tools not offered: ${r.tools.join(", ")}`);
  mcp.push(r.ms);
}

// The same server started and listed by the SDK directly, in its own session like SCV starts it (see 2.), to
// split the server's own start-up from SCV's share.
const direct: number[] = [];
const setsidForStart = Bun.which("setsid");
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const client = new Client({ name: "bench", version: "1" });
  const argv = setsidForStart ? { command: setsidForStart, args: [JS_RUNTIME, EVERYTHING, "stdio"] } : { command: JS_RUNTIME, args: [EVERYTHING, "stdio"] };
  await client.connect(new StdioClientTransport({ ...argv, stderr: "ignore" }));
  await client.listTools();
  direct.push(performance.now() - t0);
  await client.close();
}

// Per call.
const scvHome = join(root, "calls");
mkdirSync(scvHome, { recursive: true });
const config = loadConfig({ env: { SCV_HOME: scvHome, HOME: root } }).config;
const server = McpServerConfig.parse({ command: JS_RUNTIME, args: [EVERYTHING, "stdio"] });
const closers: (() => unknown)[] = [];
const scope = {
  sessionId: "s-bench",
  instanceId: "bench",
  workspace: root,
  config,
  scvHome,
  env: process.env,
  delegationDepth: 0,
  version: "bench",
  services: {},
  onClose: (fn: () => unknown) => void closers.push(fn),
  turns: { addIdleSource() {}, wake() {}, busy: () => false },
  decideUnattended: () => ({ approved: false, reason: "" }),
} as unknown as SessionScope;
const conn = await McpConnection.open({ name: "everything", server, launch: launchOf(server, root, process.env), scope, maxMessageBytes: config.mcp.max_message_bytes });
const [echoInfo] = (await conn.listTools()).filter((t) => t.name === "echo");
const binding = { name: "everything", risk: "process" as const, trustReadOnlyHints: false, toolTimeoutSeconds: 60, secrets: [{ name: "X", value: "never-in-output" }], onTimeout() {} };
const tool = mcpTool(binding, conn, echoInfo!);
const ctx = { ...scope, callId: "c", signal: new AbortController().signal, outputLimitBytes: 65536, progress() {} } as ToolCallContext;
const viaScv = async () => {
  const a = await tool.assess({ message: "hello" }, ctx);
  if (!a.ok) throw new Error("assess failed");
  const r = await tool.run(a.args, ctx);
  if (r.output !== "Echo: hello") throw new Error(`unexpected: ${r.output}`);
};
const sdk = new Client({ name: "bench", version: "1" });
await sdk.connect(new StdioClientTransport({ command: JS_RUNTIME, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
const viaSdk = async () => {
  const r = (await sdk.callTool({ name: "echo", arguments: { message: "hello" } })) as { content: { text: string }[] };
  if (r.content[0]!.text !== "Echo: hello") throw new Error("unexpected");
};
const setsid = Bun.which("setsid");
const sdkOwn = new Client({ name: "bench", version: "1" });
if (setsid) await sdkOwn.connect(new StdioClientTransport({ command: setsid, args: [JS_RUNTIME, EVERYTHING, "stdio"], stderr: "ignore" }));
const viaSdkOwnSession = async () => {
  if (!setsid) return;
  const r = (await sdkOwn.callTool({ name: "echo", arguments: { message: "hello" } })) as { content: { text: string }[] };
  if (r.content[0]!.text !== "Echo: hello") throw new Error("unexpected");
};
const scvCalls: number[] = [];
const sdkCalls: number[] = [];
const sdkOwnCalls: number[] = [];
// CPU time of this process per call (the client's side: SCV's path or the SDK's), which load barely moves.
const cpu = new Map<number[], number[]>([[scvCalls, []], [sdkCalls, []], [sdkOwnCalls, []]]);
for (let i = 0; i < 20; i++) (await viaScv(), await viaSdk(), await viaSdkOwnSession()); // warm all
const ways = [[viaScv, scvCalls], [viaSdk, sdkCalls], [viaSdkOwnSession, sdkOwnCalls]] as const;
for (let block = 0; block < CALLS / 10; block++) {
  // Each block in another order, so a drift in the machine's load hits every way alike.
  for (const [fn, out] of block % 2 ? [...ways].reverse() : ways) {
    const t = performance.now();
    const c = process.cpuUsage();
    for (let i = 0; i < 10; i++) await fn();
    const used = process.cpuUsage(c);
    out.push((performance.now() - t) / 10);
    cpu.get(out)!.push((used.user + used.system) / 10 / 1000);
  }
}
await conn.close();
await sdk.close();
await sdkOwn.close();
for (const fn of closers) await fn();
await fake.close();
rmSync(root, { recursive: true, force: true });

const f = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(`session start → first model request, no MCP server:        ${f(median(base))}`);
console.log(`session start → first model request offering MCP tools:   ${f(median(mcp))} (+${f(median(mcp) - median(base))})`);
console.log(`  the same server started and listed by the SDK directly:  ${f(median(direct))}`);
console.log(`  SCV's own share (connect, approval, listing, offer):      ${f(median(mcp) - median(base) - median(direct))}`);
const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
const autogroups = (() => {
  try {
    return require("node:fs").readFileSync("/proc/sys/kernel/sched_autogroup_enabled", "utf8").trim() === "1";
  } catch {
    return false;
  }
})();
console.log(`per call, echo (${CALLS} calls each, medians of 10-call blocks; load average ${require("node:os").loadavg()[0].toFixed(1)}, autogroups ${autogroups ? "on" : "off"}):`);
const cpuOf = (calls: number[]) => median(cpu.get(calls)!);
console.log(`  through SCV (runner transport, own session):    ${us(median(scvCalls))} wall, ${us(cpuOf(scvCalls))} client CPU`);
if (setsid) {
  console.log(
    `  SDK directly, server in its own session:        ${us(median(sdkOwnCalls))} wall, ${us(cpuOf(sdkOwnCalls))} client CPU  → SCV ${(median(scvCalls) / median(sdkOwnCalls)).toFixed(2)}x wall (target < 1.2x), ${(cpuOf(scvCalls) / cpuOf(sdkOwnCalls)).toFixed(2)}x CPU`,
  );
}
console.log(`  SDK directly, server as the SDK starts it:      ${us(median(sdkCalls))} wall, ${us(cpuOf(sdkCalls))} client CPU  → SCV ${(median(scvCalls) / median(sdkCalls)).toFixed(2)}x wall, ${(cpuOf(scvCalls) / cpuOf(sdkCalls)).toFixed(2)}x CPU`);
