// `scv skills list`: the skills a session started in this directory would see, and the folders skipped with why.
import { realpathSync, statSync } from "node:fs";
import { userHome } from "../user-home";
import { terminalSafe } from "../text/terminal-safe";
import { defineCommand } from "./command";
import { ConfigError, loadConfig, scvHome } from "../config/load";
import { discoverSkills, listDrafts, type Skill, SkillDraftError, writtenByScv } from "../skills/index";
import { decideDraft, draftsReport } from "../tools/skill_manage";

function fail(message: string, code: number): void {
  process.stderr.write(`scv skills list: ${terminalSafe(message)}\n`);
  process.exitCode = code;
}

const list = defineCommand({
  meta: { name: "list", description: "List the skills a session in this directory would see, and the skipped ones with why" },
  args: {
    cwd: { type: "string", description: "the workspace a session would start in (default: current directory)" },
    json: { type: "boolean", description: "print JSON" },
  },
  run({ args }) {
    let workspace: string;
    try {
      workspace = realpathSync(args.cwd ?? process.cwd());
      if (!statSync(workspace).isDirectory()) throw new Error("not a directory");
    } catch {
      return fail(`${JSON.stringify(args.cwd ?? process.cwd())} is not an existing directory; pass the workspace with --cwd`, 2);
    }
    let config;
    try {
      config = loadConfig({ cwd: workspace }).config;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return fail(e.message, 78);
    }
    const catalog = discoverSkills({
      workspace,
      config: config.skills,
      scvHome: scvHome(),
      home: userHome(),
      projectSkills: true,
    });
    if (args.json) {
      const skills = catalog.skills.map((s) => ({
        name: s.name,
        kind: s.kind,
        ...(s.project ? { project: s.project.name, cwd: s.project.cwd } : {}),
        description: s.description,
        path: s.file,
        ...(s.kind === "user" && writtenByScv(s.dir) ? { written_by_scv: true } : {}),
      }));
      process.stdout.write(`${JSON.stringify({ enabled: config.skills.enabled, workspace, skills, skipped: catalog.skipped }, null, 2)}\n`);
      return;
    }
    if (!config.skills.enabled) {
      process.stdout.write("skills are turned off (skills.enabled = false)\n");
      return;
    }
    // Skill and folder names come from a repository: shown with every control visible, never sent raw.
    process.stdout.write(terminalSafe(render(catalog.skills, catalog.skipped)));
  },
});

function render(skills: Skill[], skipped: { path: string; reason: string }[]): string {
  const out: string[] = [];
  const section = (title: string, rows: Skill[]) => {
    out.push(title);
    if (rows.length === 0) out.push("  (none)");
    const width = Math.max(0, ...rows.map((s) => s.name.length));
    for (const s of rows) {
      out.push(`  ${s.name.padEnd(width)}  ${s.description}${s.kind === "user" && writtenByScv(s.dir) ? "  (written by SCV)" : ""}`);
      out.push(`  ${" ".repeat(width)}  ${s.file}${s.project ? `  (delegate with cwd ${JSON.stringify(s.project.cwd)})` : ""}`);
    }
  };
  section("user skills (the model reads them with read_skill):", skills.filter((s) => s.kind === "user"));
  section("project skills (the model delegates them to their project with the agent tool):", skills.filter((s) => s.kind === "project"));
  if (skipped.length) {
    out.push(`skipped (${skipped.length}):`);
    for (const s of skipped) out.push(`  ${s.path}: ${s.reason}`);
  }
  return `${out.join("\n")}\n`;
}

const drafts = defineCommand({
  meta: { name: "drafts", description: "Show the skills SCV drafted (skill_manage), each as a diff against the skill as it is" },
  args: { json: { type: "boolean", description: "print JSON" } },
  run({ args }) {
    if (args.json) return void process.stdout.write(`${JSON.stringify({ drafts: listDrafts(scvHome()) }, null, 2)}\n`);
    process.stdout.write(terminalSafe(`${draftsReport(scvHome(), (verb, name) => `scv skills ${verb} ${name}`)}\n`));
  },
});

function decide(verb: "accept" | "reject") {
  return defineCommand({
    meta: { name: verb, description: verb === "accept" ? "Put a skill draft in place under $SCV_HOME/skills (or remove the skill, for a removal)" : "Throw a skill draft away" },
    args: { name: { type: "positional", description: "the draft's skill name (scv skills drafts)", required: true } },
    run({ args }) {
      try {
        process.stdout.write(`${decideDraft(scvHome(), verb, args.name)}\n`);
      } catch (e) {
        if (!(e instanceof SkillDraftError)) throw e;
        process.stderr.write(`scv skills ${verb}: ${terminalSafe(e.message)}\n`);
        process.exitCode = 1;
      }
    },
  });
}

export default defineCommand({
  meta: { name: "skills", description: "Inspect the skills SCV's sessions see, and the ones SCV drafted" },
  subCommands: { list, drafts, accept: decide("accept"), reject: decide("reject") },
});
