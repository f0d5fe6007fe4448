// `scv exec "hi"` with five MCP servers configured (server-everything three times and server-filesystem twice,
// each a distinct definition), against the same with none, in this same run (machines are noisy):
//   before: every server's tool list unknown (state/mcp-tools.json removed before each run), so every run starts,
//           approves (--yes) and lists all five before its first model request, as SCV did before known lists;
//   after:  the lists known from an earlier run, so the tools are offered and no server starts.
// Figures: wall time to the first model request and to exit, as medians. Target: after within 1.2x of none.
// Only loopback traffic: the model is the scripted fake endpoint on 127.0.0.1.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel, text } from "../test/fake/model-server";
import { EVERYTHING, FILESYSTEM, JS_RUNTIME, serverToml } from "../test/fake/mcp-servers";
import { median } from "./bare";

const RUNS = Number(process.env.RUNS ?? 7);
const scv = join(import.meta.dir, "..", "dist", "scv");
const root = mkdtempSync(join(tmpdir(), "scv-bench-mcp-start-"));
const fake = await startFakeModel({ respond: () => text("hi") });

function home(name: string, extra: (workspace: string) => string) {
  const h = join(root, name);
  const workspace = join(h, "ws");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(h, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n${extra(workspace)}`);
  return { env: { PATH: process.env.PATH ?? "", HOME: h, SCV_HOME: h }, workspace, home: h };
}

const five = (ws: string) =>
  serverToml("everything", { command: JS_RUNTIME, args: [EVERYTHING, "stdio"] }) +
  serverToml("everything2", { command: JS_RUNTIME, args: [EVERYTHING, "stdio"], env: { ROLE: "two" } }) +
  serverToml("everything3", { command: JS_RUNTIME, args: [EVERYTHING, "stdio"], env: { ROLE: "three" } }) +
  serverToml("files", { command: JS_RUNTIME, args: [FILESYSTEM, ws] }) +
  serverToml("files2", { command: JS_RUNTIME, args: [FILESYSTEM, join(ws, "..")] });

/** ms to the first model request and to exit of `scv exec --yes hi`; the tools it offered. */
async function run(h: ReturnType<typeof home>): Promise<{ first: number; exit: number; tools: string[] }> {
  const before = fake.requests.length;
  const t0 = performance.now();
  const p = Bun.spawn([scv, "exec", "--yes", "hi"], { env: h.env, cwd: h.workspace, stdout: "pipe", stderr: "pipe" });
  let first = 0;
  const watch = (async () => {
    while (fake.requests.length === before && p.exitCode === null) await Bun.sleep(1);
    first = performance.now() - t0;
  })();
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const exit = performance.now() - t0;
  await watch;
  if (code !== 0 || out.trim() !== "hi") throw new Error(`scv exec failed (${code}): ${err}`);
  const tools = (fake.requests[before]?.body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
  return { first, exit, tools };
}

const none = home("none", () => "");
const mcp = home("five", five);
const known = join(mcp.home, "state", "mcp-tools.json");
const rows = { none: [] as number[][], before: [] as number[][], after: [] as number[][] };
await run(none); // warm the page cache for the binary
for (let i = 0; i < RUNS; i++) {
  const a = await run(none);
  rows.none.push([a.first, a.exit]);
  rmSync(known, { force: true });
  const b = await run(mcp);
  // Five servers' schemas pass the 8 KB budget (mcp.schema_budget_bytes): they are offered through load_tools.
  if (!b.tools.includes("load_tools") && b.tools.filter((t) => t.includes("__")).length < 5) throw new Error(`MCP tools not offered: ${b.tools.join(", ")}`);
  rows.before.push([b.first, b.exit]);
  const c = await run(mcp);
  if (c.tools.join() !== b.tools.join()) throw new Error("the known lists offered other tools than the servers listed");
  rows.after.push([c.first, c.exit]);
}
await fake.close();
rmSync(root, { recursive: true, force: true });

const col = (xs: number[][], i: number) => median(xs.map((x) => x[i]!));
const f = (ms: number) => `${ms.toFixed(0)} ms`;
console.log(`scv exec "hi", medians of ${RUNS} runs (load average ${require("node:os").loadavg()[0].toFixed(1)}):`);
console.log(`                                     first request   exit`);
for (const [name, xs] of [["no MCP server", rows.none], ["5 servers, lists unknown (before)", rows.before], ["5 servers, lists known (after)", rows.after]] as const) {
  console.log(`  ${name.padEnd(34)} ${f(col(xs, 0)).padStart(8)}  ${(col(xs, 0) / col(rows.none, 0)).toFixed(2)}x   ${f(col(xs, 1)).padStart(8)}  ${(col(xs, 1) / col(rows.none, 1)).toFixed(2)}x`);
}
console.log(`target: lists known within 1.2x of no server`);
