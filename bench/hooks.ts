// The cost of a hook on every tool call: turns through the in-process protocol, each one `read` call and two model
// requests answered at once by an in-process stub `fetch` (no socket), in a session with no hooks and in one with a
// single no-op PreToolUse hook (`cat >/dev/null`: a real /bin/sh process through the process runner, reading its
// JSON). The two kinds of session alternate in the same run; the figure is the median wall time per turn with
// the hook minus without, i.e. what one no-op hook adds to a tool call.
// Target: under 10 ms added per call. Run: bun bench/hooks.ts (BENCH_TURNS, BENCH_ROUNDS to change the size)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBenchSession } from "./in-process-session";
import { median } from "./bare";

const TURNS = Number(process.env.BENCH_TURNS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const root = mkdtempSync(join(tmpdir(), "scv-bench-hooks-"));
const workspace = join(root, "ws");
mkdirSync(workspace);
writeFileSync(join(workspace, "notes.txt"), "a short file the model reads on every turn\n");
const BASE = `[provider]\nactive = "stub"\n[providers.stub]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "gpt-5.5"\nmax_retries = 0\n`;
function home(name: string, extra: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "config.toml"), BASE + extra);
  return dir;
}
const plainHome = home("plain", "");
const hookedHome = home("hooked", `[[hooks.PreToolUse]]\nmatcher = "Read"\ncommand = "cat >/dev/null"\n`);

let serial = 0;
const frame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const stubFetch = (async (_url: string, init: RequestInit) => {
  const body = init.body as string;
  const n = ++serial;
  const call = body.lastIndexOf('"role":"user"') > body.lastIndexOf('"type":"function_call_output"');
  const item = call
    ? { id: `fc_${n}`, type: "function_call", call_id: `call_${n}`, name: "read", arguments: '{"path":"notes.txt"}' }
    : { id: `msg_${n}`, type: "message", content: [{ type: "output_text", text: "read it", annotations: [] }] };
  const usage = { input_tokens: 100, output_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
  const frames = [
    frame("response.created", { response: { id: `resp_${n}`, status: "in_progress" } }),
    frame("response.output_item.done", { output_index: 0, item }),
    frame("response.completed", { response: { id: `resp_${n}`, status: "completed", output: [], usage } }),
  ];
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}) as unknown as typeof fetch;

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Wall time of each of TURNS turns in one session of `scvHome`; `cpu` gets this process's CPU time per turn. */
async function session(scvHome: string, cpu: number[] = []): Promise<number[]> {
  let hookRuns = 0;
  const s = await openBenchSession({ scvHome, workspace, fetch: stubFetch, onNotification: (method) => void (method === "hook.completed" && hookRuns++) });
  const times: number[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const began = performance.now();
    const cpuBegan = cpuMs();
    await s.turn(`turn ${turn}: read notes.txt`);
    times.push(performance.now() - began);
    cpu.push(cpuMs() - cpuBegan);
  }
  await s.close();
  const expected = scvHome === hookedHome ? TURNS : 0;
  if (hookRuns !== expected) throw new Error(`expected ${expected} hook runs, saw ${hookRuns}`);
  return times;
}

const plain: number[] = [];
const hooked: number[] = [];
const plainCpu: number[] = [];
const hookedCpu: number[] = [];
try {
  await session(plainHome); // warm-up: the first session loads what every later one shares
  for (let i = 0; i < ROUNDS; i++) {
    plain.push(...(await session(plainHome, plainCpu)));
    hooked.push(...(await session(hookedHome, hookedCpu)));
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
// What the machine charges for the process alone (spawn, exec, exit; no runner), measured in the same run, so a
// figure taken on a loaded machine can be read against it.
const bare: number[] = [];
for (let i = 0; i < 20; i++) {
  const began = performance.now();
  const p = Bun.spawn(["/bin/sh", "-c", "cat >/dev/null"], { stdin: new TextEncoder().encode("{}"), stdout: "ignore", stderr: "ignore" });
  await p.exited;
  bare.push(performance.now() - began);
}
const without = median(plain);
const withHook = median(hooked);
const added = withHook - without;
console.log(`${TURNS} turns x ${ROUNDS} sessions of each kind, alternating; each turn one read call and two model requests (stub endpoint)`);
console.log(`  median per turn: no hooks ${without.toFixed(2)} ms, one no-op PreToolUse hook ${withHook.toFixed(2)} ms (ratio ${(withHook / without).toFixed(2)}x)`);
console.log(`  added per tool call: ${added.toFixed(2)} ms  target < 10 ms ${added < 10 ? "met" : "MISSED"}`);
console.log(`  SCV's own CPU time per turn (the runner's tracking and scans, the hook's JSON; not the hook process): no hooks ${median(plainCpu).toFixed(2)} ms, with the hook ${median(hookedCpu).toFixed(2)} ms, added ${(median(hookedCpu) - median(plainCpu)).toFixed(2)} ms`);
console.log(`  for scale: the same command spawned bare (Bun.spawn, no runner, no cleanup scan) takes ${median(bare).toFixed(2)} ms here; the rest is the runner's tracking and descendant scan`);
