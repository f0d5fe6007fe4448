// The grep tool over a generated tree of 50,000 files / 200 MB against ripgrep on the same tree, in the same run.
// Targets: within 3x of ripgrep's time, peak RSS of the searching process under 150 MiB.
// ripgrep: `apt-get install ripgrep` (Debian); without it the benchmark says so and skips.
// Run: bun bench/grep.ts   (the tree is made in a temporary directory and removed afterwards)
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FILES = 50_000;
const TOTAL_BYTES = 200 * 1e6;
const PER_DIR = 100;
/** One pattern with a literal every match contains (grep skips decoding files without it), one without. */
const PATTERNS = ["zebra_[0-9]{4}", "(?:zebra|quagga)_[0-9]{4}"];
const PLANTED = 500;
const MIB = 2 ** 20;

// Child mode: run the grep tool once in a fresh process and report time, matches and peak RSS as JSON.
if (process.argv[2] === "--child") {
  const [, , , workspace, pattern] = process.argv;
  const { createGrepTool } = await import("../src/tools/grep");
  const { makeScope, makeCallContext } = await import("../test/fake/scope");
  const scope = makeScope({ workspace: workspace! });
  const ctx = makeCallContext(scope, { outputLimitBytes: 1 << 20 });
  const tool = createGrepTool(scope);
  const began = performance.now();
  const assessed = await tool.assess({ pattern, max_results: 1000 }, ctx);
  if (!assessed.ok) throw new Error(assessed.result.output);
  const result = await tool.run(assessed.args, ctx);
  const ms = performance.now() - began;
  const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
  console.log(JSON.stringify({ ms, matches: result.event?.matches, rss: Number(hwm?.[1] ?? 0) * 1024 }));
  process.exit(0);
}

const rg = Bun.which("rg");
if (!rg) {
  console.log("bench/grep: ripgrep (rg) is not installed, so there is no baseline; skipped. Install it with `apt-get install ripgrep`.");
  process.exit(0);
}

/** Source-like lines so both searchers do realistic work; a few lines carry the needle. */
function makeTree(root: string): number {
  const perFile = Math.round(TOTAL_BYTES / FILES);
  const line = "export function handler(request, response) { return response.send(request.body.value + 42); }\n";
  const body = line.repeat(Math.ceil(perFile / line.length)).slice(0, perFile);
  writeFileSync(join(root, ".gitignore"), "ignored/\n*.tmp\n");
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${Math.floor(i / (PER_DIR * 10))}`, `mod${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(dir, { recursive: true });
    const planted = i % Math.floor(FILES / PLANTED) === 0 ? `const marker = "zebra_${String(i % 10000).padStart(4, "0")}";\n` : "";
    const content = planted + body.slice(planted.length);
    writeFileSync(join(dir, `file${i}.ts`), content);
    bytes += content.length;
  }
  // Ignored content with the needle: both must skip it.
  mkdirSync(join(root, "ignored"));
  for (let i = 0; i < 50; i++) writeFileSync(join(root, "ignored", `x${i}.ts`), "zebra_9999\n");
  return bytes;
}

async function timeRg(root: string, pattern: string): Promise<{ ms: number; matches: number }> {
  const began = performance.now();
  const p = Bun.spawn([rg!, "-n", "--no-require-git", "--no-messages", "-e", pattern, "."], { cwd: root, stdout: "pipe", stderr: "inherit" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return { ms: performance.now() - began, matches: out.split("\n").filter(Boolean).length };
}

async function timeTool(root: string, pattern: string): Promise<{ ms: number; matches: number; rss: number; wall: number }> {
  const began = performance.now();
  const p = Bun.spawn([process.execPath, import.meta.path, "--child", root, pattern], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(p.stdout).text();
  if ((await p.exited) !== 0) throw new Error("the grep child failed");
  return { ...JSON.parse(out), wall: performance.now() - began };
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "scv-bench-grep-")));
try {
  const made = performance.now();
  const bytes = makeTree(root);
  console.log(`tree: ${FILES} files, ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - made) / 1000).toFixed(1)} s`);
  await timeRg(root, PATTERNS[0]!); // warm the page cache for both
  const runs = 3;
  const best = (xs: number[]) => Math.min(...xs);
  let worst = 0;
  let rss = 0;
  for (const pattern of PATTERNS) {
    const rgTimes: number[] = [];
    const toolTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await timeRg(root, pattern);
      const t = await timeTool(root, pattern);
      if (r.matches !== t.matches) throw new Error(`ripgrep found ${r.matches} lines for /${pattern}/, grep ${t.matches}`);
      rgTimes.push(r.ms);
      toolTimes.push(t.ms);
      rss = Math.max(rss, t.rss);
    }
    const ratio = best(toolTimes) / best(rgTimes);
    worst = Math.max(worst, ratio);
    console.log(`/${pattern}/: ripgrep ${best(rgTimes).toFixed(0)} ms, grep tool ${best(toolTimes).toFixed(0)} ms (best of ${runs}), ${PLANTED} matches: ${ratio.toFixed(2)}x`);
  }
  console.log(`worst ratio ${worst.toFixed(2)}x ripgrep (target <= 3x) ${worst <= 3 ? "OK" : "OVER"}; peak RSS ${(rss / MIB).toFixed(0)} MiB (target < 150 MiB) ${rss <= 150 * MIB ? "OK" : "OVER"}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
