// `scv exec "say hi"` from spawn to its first model request (the scripted model on loopback,
// test/fake/model-server.ts, records the moment), each run in a new directory without a project file, for this
// tree's dist/scv and a baseline build (BASELINE_BIN, default /work/wt-57-base/dist/scv), alternating, against a
// bare compiled hello-world built here (spawn to exit). Each binary keeps its SCV_HOME across runs, as a person's
// home is kept (its configuration check cache). Target (issue 57): at most 3x the bare hello.
//   bun bench/exec-start.ts   (RUNS=15)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel, text } from "../test/fake/model-server";
import { buildBareHello, median } from "./bare";

const RUNS = Number(process.env.RUNS ?? 15);
const builds = { base: process.env.BASELINE_BIN ?? "/work/wt-57-base/dist/scv", now: join(import.meta.dir, "..", "dist", "scv") };
let firstAt = 0;
const fake = await startFakeModel({ respond: () => text("hi"), onRequest: () => void (firstAt ||= performance.now()) });
const root = mkdtempSync(join(tmpdir(), "scv-bench-exec-start-"));
const { dir: bareDir, bare } = buildBareHello();
const homes: Record<string, string> = {};
for (const name of Object.keys(builds)) {
  homes[name] = join(root, `home-${name}`);
  mkdirSync(homes[name]!);
  writeFileSync(join(homes[name]!, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n`);
}

let n = 0;
async function toFirstRequest(name: keyof typeof builds): Promise<number> {
  const ws = join(root, `ws-${n++}`); // a new directory each run: no project file, never seen before
  mkdirSync(ws);
  firstAt = 0;
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "user-home"), SCV_HOME: homes[name]! };
  const t0 = performance.now();
  const p = Bun.spawn([builds[name], "exec", "say hi"], { cwd: ws, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0 || !firstAt) throw new Error(`${name} exited ${code}: ${out}\n${err}`);
  rmSync(ws, { recursive: true, force: true });
  return firstAt - t0;
}

async function bareRun(): Promise<number> {
  const t0 = performance.now();
  await Bun.spawn([bare], { stdout: "ignore", stderr: "ignore" }).exited;
  return performance.now() - t0;
}

const times: Record<string, number[]> = { base: [], now: [], bare: [] };
try {
  await toFirstRequest("base"); // warm-up: each home's configuration check cache
  await toFirstRequest("now");
  for (let i = 0; i < RUNS; i++) {
    times.bare!.push(await bareRun());
    times.base!.push(await toFirstRequest("base"));
    times.now!.push(await toFirstRequest("now"));
  }
} finally {
  fake.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(bareDir, { recursive: true, force: true });
}
const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
const b = median(times.bare!);
console.log(`${RUNS} runs each, alternating, each in a new directory; load average ${load}`);
console.log(`  bare compiled hello (spawn to exit): ${b.toFixed(1)} ms`);
for (const name of ["base", "now"] as const) {
  const m = median(times[name]!);
  console.log(`  ${name.padEnd(4)} exec "say hi" to the first request: ${m.toFixed(1)} ms = ${(m / b).toFixed(2)}x the bare hello (target <= 3x)`);
}
