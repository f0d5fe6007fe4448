// Skill discovery at session start, against the least any discovery must do in the same run: list the same
// directories and read each SKILL.md whole with readFileSync. The fixture is a busy case: 64 user skills and a
// workspace of 500 child directories, 20 of them projects with skills (so discovery stops at max_skills and
// names the rest). Target: under 25 ms per session start, within 4x the baseline. Run: bun bench/skills-discovery.ts
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SkillsConfig } from "../src/config/schema";
import { discoverSkills } from "../src/skills/index";

const root = mkdtempSync(join(tmpdir(), "scv-bench-skills-"));
const home = join(root, "home");
const scvHome = join(root, "scv-home");
const workspace = join(root, "ws");
const body = "Step.\n".repeat(2000); // ~12 KB of instructions below the front matter
const skill = (dir: string, name: string) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: Use when the work needs ${name}; it knows the steps.\n---\n${body}`);
};
for (let i = 0; i < 64; i++) skill(join(home, ".agents", "skills", `user-${i}`), `user-${i}`);
for (let i = 0; i < 500; i++) {
  mkdirSync(join(workspace, `child-${i}`, "src"), { recursive: true });
  if (i % 25 === 0) for (let k = 0; k < 3; k++) skill(join(workspace, `child-${i}`, ".claude", "skills", `p-${k}`), `p-${k}`);
}

const config = SkillsConfig.parse({ max_skills: 1024 });
const discover = () => discoverSkills({ workspace, config, scvHome, home, projectSkills: true });

function baseline(): number {
  let n = 0;
  const roots = [join(scvHome, "skills"), join(home, ".agents", "skills"), join(workspace, ".agents", "skills"), join(workspace, ".claude", "skills")];
  for (const child of readdirSync(workspace)) for (const sub of [".agents/skills", ".claude/skills"]) roots.push(join(workspace, child, sub));
  for (const r of roots) {
    if (!existsSync(r)) continue;
    for (const entry of readdirSync(r)) n += readFileSync(join(r, entry, "SKILL.md")).length > 0 ? 1 : 0;
  }
  return n;
}

function timeIt(fn: () => unknown, runs: number): number {
  fn();
  const began = performance.now();
  for (let i = 0; i < runs; i++) fn();
  return (performance.now() - began) / runs;
}

try {
  const found = discover();
  if (found.skills.length !== 64 + 60 || found.skipped.length !== 0) throw new Error(`unexpected catalog: ${found.skills.length} skills, ${found.skipped.length} skipped`);
  if (baseline() !== 124) throw new Error("baseline read a different set of skills");
  const runs = 30;
  const base = timeIt(baseline, runs);
  const ours = timeIt(discover, runs);
  console.log(`baseline (readdir + readFileSync): ${base.toFixed(2)} ms`);
  console.log(`discoverSkills (124 skills, 500 children): ${ours.toFixed(2)} ms`);
  console.log(`ratio: ${(ours / base).toFixed(2)}x  (target: under 25 ms, within 4x)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
