// The command guard's cost per command, over the test table (test/guard/commands.ts, 400+ commands: read-only,
// ambiguous, dangerous and obfuscated). Measured as `bash` pays it: in a real git repository (so every git
// command reads .git/config), with the approval rules file read on each call. Baseline, in the same run: the
// tokenizer alone on the same commands, the least any lexical guard must do (one pass over the text).
// Target: under 0.2 ms per command at the 99th percentile. Run: bun bench/guard.ts
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addRule, classifyCommand, loadRules, programList } from "../src/guard/index";
import { tokenize } from "../src/guard/tokenize";
import { COMMANDS } from "../test/guard/commands";

const root = mkdtempSync(join(tmpdir(), "scv-bench-guard-"));
const workspace = join(root, "ws");
const scvHome = join(root, "scv-home");
const home = root;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/**
 * Every command timed `rounds` times, one call per sample, in milliseconds: all samples, and each command's
 * median (the machine is shared, so a single sample can be a scheduler pause; a command's median is its cost).
 */
function sample(fn: (command: string) => unknown, rounds: number): { all: number[]; perCommand: number[] } {
  const byCommand = COMMANDS.map(() => [] as number[]);
  for (const r of COMMANDS) fn(r.command); // warm up
  for (let i = 0; i < rounds; i++) {
    COMMANDS.forEach((r, k) => {
      const t = performance.now();
      fn(r.command);
      byCommand[k]!.push(performance.now() - t);
    });
  }
  return { all: byCommand.flat(), perCommand: byCommand.map((xs) => percentile(xs, 50)) };
}

try {
  Bun.spawnSync(["mkdir", "-p", workspace]);
  if (!Bun.spawnSync(["git", "init", "-q", workspace]).success) throw new Error("git init failed");
  writeFileSync(join(workspace, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\tname = bench\n");
  addRule(scvHome, ["just", "lint"], workspace); // consulted for every command that asks, matching none of the table
  const programs = programList();
  const guard = (command: string) => classifyCommand(command, { workspace, home, scvHome, programs, rules: loadRules(scvHome) });
  const decided = COMMANDS.filter((r) => guard(r.command).decision === "allow" && r.does !== "read");
  if (decided.length) throw new Error(`dangerous commands allowed: ${decided.map((r) => r.command).join(", ")}`);

  const rounds = 30;
  const base = sample((c) => tokenize(c), rounds);
  const ours = sample(guard, rounds);
  const rules = loadRules(scvHome);
  const lexical = sample((command) => classifyCommand(command, { workspace, home, scvHome, programs, rules, gitConfig: () => undefined }), rounds);
  const ms = (x: number) => `${x.toFixed(4)} ms`;
  const show = (label: string, s: { all: number[]; perCommand: number[] }) =>
    console.log(
      `${label.padEnd(44)} per command: p50 ${ms(percentile(s.perCommand, 50))}  p99 ${ms(percentile(s.perCommand, 99))}  max ${ms(percentile(s.perCommand, 100))}` +
        `   | all samples: p99 ${ms(percentile(s.all, 99))}`,
    );
  console.log(`${COMMANDS.length} commands x ${rounds} rounds (per command: each command's median over the rounds)`);
  show("baseline: tokenize only", base);
  show("guard, lexical part (no file read)", lexical);
  show("guard (rules file read + classify, git repo)", ours);
  const p99 = percentile(ours.perCommand, 99);
  console.log(`ratio at p99: ${(p99 / percentile(base.perCommand, 99)).toFixed(1)}x the tokenizer; target: p99 under 0.2 ms (${p99 < 0.2 ? "met" : "NOT met"})`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
