// A bare compiled hello-world, built with the same flags as dist/scv, so benchmarks can print ratios against a
// baseline measured in the same run (machines are noisy; only same-run ratios mean anything).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function buildBareHello(): { dir: string; bare: string } {
  const dir = mkdtempSync(join(tmpdir(), "scv-bench-"));
  writeFileSync(join(dir, "hello.ts"), `console.log("hello")\n`);
  const bare = join(dir, "hello");
  const built = Bun.spawnSync([process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", "--outfile", bare, join(dir, "hello.ts")]);
  if (!built.success) throw new Error(built.stderr.toString());
  return { dir, bare };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The median wall time of `rounds` calls of `fn` (awaited), in milliseconds. */
export async function medianTime(fn: () => unknown, rounds: number): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return median(out);
}

/** Wall time of one run of `argv` to its exit. */
export function timeRun(argv: string[], env: Record<string, string>): number {
  const t0 = performance.now();
  const r = Bun.spawnSync(argv, { env, stdout: "pipe", stderr: "pipe" });
  if (!r.success) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`);
  return performance.now() - t0;
}
