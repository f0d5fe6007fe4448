// The interactive session's start-up: time from spawn until the prompt is drawn on a real pty (`script`
// allocates one), against a bare compiled hello-world printing through the same pty in the same run.
// Target: the prompt drawn within 100 ms of spawn.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBareHello, median } from "./bare";

const RUNS = Number(process.env.RUNS ?? 20);
const scv = join(import.meta.dir, "..", "dist", "scv");
const { dir, bare } = buildBareHello();
try {
  const home = join(dir, "scv-home");
  mkdirSync(home);
  // A profile on a loopback port nobody listens on: the TUI never sends a request in this benchmark.
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "local"\n[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n`);
  const env = { PATH: process.env.PATH ?? "", HOME: dir, SCV_HOME: home, TERM: "xterm-256color" };

  /** Milliseconds from spawn until `marker` appears on the pty's output. */
  async function timeUntil(command: string, marker: string): Promise<number> {
    const t0 = performance.now();
    const p = Bun.spawn(["script", "-qfec", command, "/dev/null"], { env, cwd: dir, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    const reader = p.stdout.getReader();
    let text = "";
    let elapsed = -1;
    while (elapsed < 0) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (text.includes(marker)) elapsed = performance.now() - t0;
    }
    p.kill("SIGKILL");
    await p.exited;
    if (elapsed < 0) throw new Error(`${command} never printed ${marker}: ${text}`);
    return elapsed;
  }

  const bareTimes: number[] = [];
  const tuiTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bareTimes.push(await timeUntil(bare, "hello"));
    tuiTimes.push(await timeUntil(scv, "›"));
  }
  const b = median(bareTimes);
  const t = median(tuiTimes);
  console.log(`runs: ${RUNS}`);
  console.log(`bare compiled hello-world through a pty: ${b.toFixed(1)} ms (median)`);
  console.log(`scv prompt drawn:                        ${t.toFixed(1)} ms after spawn (median; target <= 100 ms), ratio ${(t / b).toFixed(2)}x bare`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
