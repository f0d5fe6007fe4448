// What every tool call, hook and command pays, this tree against a baseline build's sources, in the same run
// (issue 57). Turns through the in-process protocol (bench/in-process-session.ts), each one tool call and two model
// requests answered at once by an in-process stub `fetch`, with SCV a child subreaper as `server --stdio` makes
// it, the sandbox off:
//   read        a `read` call (the tool loop's own share)
//   hooked      the same with one no-op PreToolUse hook (`cat >/dev/null`)
//   bash        a `bash` call of `true`, the user's profile empty
//   bash-slow   the same, the user's ~/.profile taking 150 ms (exports, a function, an alias, `sleep 0.15`)
// and, for scale, a bare Bun.spawn of `bash -c true` and of the hook's own command (its input written, its output
// read to the end: what the hook costs with no SCV around it). Each build runs in its own child process (`--child <root>`
// imports that tree's src/), alternating, ROUNDS times; every figure is a median over all turns of its kind.
// Figures: hook added (hooked - read) <= 3 ms, and SCV's share of it (less the bare hook); (bash - read) / bare `bash -c true` <= 1.5x; bash-slow / bash
// <= 1.1x.
//   bun bench/command-costs.ts   (BASELINE_ROOT=/work/wt-57b-base TURNS=20 ROUNDS=3)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./bare";

const TURNS = Number(process.env.TURNS ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const KINDS = ["read", "hooked", "bash", "bash-slow"] as const;
type Kind = (typeof KINDS)[number];

if (process.argv[2] === "--child") await child(process.argv[3]!, Number(process.argv[4] ?? 0));
else await parent();

async function parent(): Promise<void> {
  const baseRoot = process.env.BASELINE_ROOT ?? "/work/wt-57b-base";
  const roots = { base: baseRoot, now: join(import.meta.dir, "..") };
  const all: Record<string, Record<string, number[]>> = { base: {}, now: {} };
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of ["base", "now"] as const) {
      // No XDG_CACHE_HOME: the login snapshots go under each session's own HOME (an empty value would make Bun
      // put its transpiler cache in the working directory).
      const { XDG_CACHE_HOME: _, ...env } = process.env;
      const p = Bun.spawnSync([process.execPath, import.meta.path, "--child", roots[which], String(round)], { stdout: "pipe", stderr: "inherit", env });
      if (!p.success) throw new Error(`${which} child failed`);
      const got = JSON.parse(p.stdout.toString().trim().split("\n").at(-1)!) as Record<string, number[]>;
      for (const [k, v] of Object.entries(got)) (all[which]![k] ??= []).push(...v);
    }
  }
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  console.log(`${TURNS} turns x ${ROUNDS} rounds per kind and build, alternating; load average ${load}; baseline ${baseRoot}`);
  const fig: Record<string, Record<string, number>> = {};
  for (const which of ["base", "now"] as const) {
    const m = (k: string) => median(all[which]![k]!);
    fig[which] = { read: m("read"), hooked: m("hooked"), bash: m("bash"), slow: m("bash-slow"), bare: m("bare"), bareHook: m("bare-hook") };
    const f = fig[which]!;
    console.log(
      `  ${which.padEnd(4)} per turn: read ${f.read!.toFixed(2)} ms, hooked ${f.hooked!.toFixed(2)}, bash true ${f.bash!.toFixed(2)}, bash true with a 150 ms profile ${f.slow!.toFixed(2)}; bare bash -c true ${f.bare!.toFixed(2)} ms; the hook's own process bare ${f.bareHook!.toFixed(2)} ms`,
    );
  }
  for (const which of ["base", "now"] as const) {
    const f = fig[which]!;
    const hook = f.hooked! - f.read!;
    const bashRatio = (f.bash! - f.read!) / f.bare!;
    const slowRatio = f.slow! / f.bash!;
    const c = (k: string) => median(all[which]![`${k}-cpu`]!);
    console.log(`  ${which.padEnd(4)} SCV's own CPU per turn (steadier under load): read ${c("read").toFixed(2)} ms, hook added ${(c("hooked") - c("read")).toFixed(2)} ms, bash true added ${(c("bash") - c("read")).toFixed(2)} ms, with the 150 ms profile ${(c("bash-slow") - c("read")).toFixed(2)} ms`);
    console.log(
      `  ${which.padEnd(4)} hook added ${hook.toFixed(2)} ms (target <= 3), of which SCV's share (less the hook's own process) ${(hook - f.bareHook!).toFixed(2)} ms   bash true less the loop ${(f.bash! - f.read!).toFixed(2)} ms = ${bashRatio.toFixed(2)}x a bare spawn (target <= 1.5x)   150 ms profile ${slowRatio.toFixed(2)}x an empty one (target <= 1.1x)`,
    );
  }
}

async function child(root: string, round: number): Promise<void> {
  const { openBenchSession } = (await import(join(root, "bench", "in-process-session.ts"))) as typeof import("./in-process-session");
  const { requestSubreaper } = (await import(join(root, "src", "process", "subreaper.ts"))) as typeof import("../src/process/subreaper");
  requestSubreaper(); // as `server --stdio` and `scv exec` do
  const dir = mkdtempSync(join(tmpdir(), "scv-bench-costs-"));
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  writeFileSync(join(workspace, "notes.txt"), "a short file the model reads on every turn\n");
  const BASE = `[provider]\nactive = "stub"\n[providers.stub]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "gpt-5.5"\nmax_retries = 0\n[sandbox]\nmode = "off"\n`;
  const scvHome = (name: string, extra: string) => {
    const d = join(dir, name);
    mkdirSync(d);
    writeFileSync(join(d, "config.toml"), BASE + extra);
    return d;
  };
  const plain = scvHome("plain", "");
  const hooked = scvHome("hooked", `[[hooks.PreToolUse]]\nmatcher = "Read"\ncommand = "cat >/dev/null"\n`);
  const emptyHome = join(dir, "home-empty");
  const slowHome = join(dir, "home-slow");
  mkdirSync(emptyHome);
  mkdirSync(slowHome);
  writeFileSync(join(slowHome, ".profile"), ['export NVM_DIR="$HOME/.nvm"', 'export PATH="$HOME/.local/bin:$PATH"', "nvm_use() { echo using; }", "alias ll='ls -l'", "sleep 0.15"].join("\n") + "\n");

  let serial = 0;
  let tool: { name: string; arguments: string } = { name: "read", arguments: "" };
  const frame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const stubFetch = (async (_url: string, init: RequestInit) => {
    const body = init.body as string;
    const n = ++serial;
    const call = body.lastIndexOf('"role":"user"') > body.lastIndexOf('"type":"function_call_output"');
    const item = call ? { id: `fc_${n}`, type: "function_call", call_id: `call_${n}`, ...tool } : { id: `msg_${n}`, type: "message", content: [{ type: "output_text", text: "done", annotations: [] }] };
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
  const cpu: Record<string, number[]> = {};
  async function session(kind: Kind | "warm"): Promise<number[]> {
    const bash = kind === "bash" || kind === "bash-slow";
    tool = bash ? { name: "bash", arguments: '{"command":"true"}' } : { name: "read", arguments: '{"path":"notes.txt"}' };
    process.env.HOME = kind === "bash-slow" ? slowHome : emptyHome;
    let failed = 0;
    const s = await openBenchSession({
      scvHome: kind === "hooked" ? hooked : plain,
      workspace,
      fetch: stubFetch,
      onNotification: (method, params) => void (method === "tool.completed" && !params.ok && failed++),
    });
    const times: number[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      const began = performance.now();
      const cpuBegan = cpuMs();
      await s.turn(`turn ${turn}`);
      times.push(performance.now() - began);
      (cpu[`${kind}-cpu`] ??= []).push(cpuMs() - cpuBegan);
    }
    await s.close();
    if (failed) throw new Error(`${failed} ${kind} calls failed`);
    return times;
  }

  const out: Record<string, number[]> = {};
  try {
    await session("warm");
    await session("bash");
    // Odd rounds run the kinds in reverse, so no kind always comes after another.
    for (const kind of round % 2 ? [...KINDS].reverse() : KINDS) out[kind] = await session(kind);
    for (const kind of KINDS) out[`${kind}-cpu`] = cpu[`${kind}-cpu`]!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  out.bare = [];
  for (let i = 0; i < 20; i++) {
    const began = performance.now();
    await Bun.spawn(["/bin/bash", "-c", "true"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" }).exited;
    out.bare.push(performance.now() - began);
  }
  // The hook's own process, bare: the same command on Bun's pipes, a PreToolUse input like the session's written
  // to it and its output read to the end. What SCV adds to a hook is the hook added less this.
  const input = JSON.stringify({ session_id: "s", cwd: workspace, hook_event_name: "PreToolUse", tool_name: "Read", tool_input: { file_path: join(workspace, "notes.txt") }, tool_use_id: "call_1" });
  out["bare-hook"] = [];
  for (let i = 0; i < 20; i++) {
    const began = performance.now();
    const p = Bun.spawn(["/bin/sh", "-c", "cat >/dev/null"], { cwd: tmpdir(), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    p.stdin.write(input);
    await p.stdin.end();
    await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    out["bare-hook"].push(performance.now() - began);
  }
  console.log(JSON.stringify(out));
}
