// The `read_skill` tool: the SKILL.md of a skill found at session start, by name, or a file inside that skill's
// folder (a reference or script SKILL.md names). It never takes a path outside a discovered skill's folder, so it
// cannot read anything but the skills' own files, each at most skills.max_skill_bytes.
import { userHome } from "../user-home";
import { lazySchema } from "../lazy-schema";
import { discoverSkills, projectSkillsSection, readSkill, type SkillCatalog, SkillReadError, userSkillsSection } from "../skills/index";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { defineTool, type Tool, type ToolRegistry } from "./tool";

export const ReadSkillArgs = lazySchema((z) => z.strictObject({
  name: z
    .string()
    .min(1, "must not be empty; give a skill name from the system prompt")
    .max(256, "must be at most 256 characters")
    .describe("The skill's name as listed in the system prompt, e.g. release-checks or web:deploy"),
  file: z
    .string()
    .min(1, "must not be empty; leave it out to read SKILL.md")
    .max(1024, "must be at most 1024 characters")
    .optional()
    .describe("A file inside the skill's folder that SKILL.md names (e.g. scripts/check.sh); omit for SKILL.md"),
}));

/** The session's skills, discovered once on first use (tool list or prompt) and kept for the session's life. */
export function sessionSkills(scope: SessionScope): SkillCatalog {
  const existing = scope.services.skills;
  if (existing) return existing;
  const catalog = discoverSkills({
    workspace: scope.workspace,
    config: scope.config.skills,
    scvHome: scope.scvHome,
    home: userHome(scope.env),
    projectSkills: true,
  });
  scope.services.skills = catalog;
  return catalog;
}

const FIT_OUTPUT = "to fit tools.output_limit_bytes";

export function createReadSkillTool(scope: SessionScope): Tool | undefined {
  const catalog = sessionSkills(scope);
  if (catalog.skills.length === 0) return undefined;
  return defineTool({
    name: "read_skill",
    kind: "read",
    description:
      "Read a skill's SKILL.md by the name listed in the system prompt (project skills: <project>:<name>), " +
      "or with `file` a file inside its folder that SKILL.md names.",
    parameters: ReadSkillArgs,
    // Checked here so an unknown name is refused before the call is shown or run.
    risk: (args) => {
      if (!catalog.byName.has(args.name)) throw new ToolError(unknownSkill(catalog, args.name));
      return "read_only";
    },
    summary: (args) => (args.file ? `read ${args.file} of skill ${args.name}` : `read skill ${args.name}`),
    label: (args) => (args.file ? `read_skill ${args.name} ${args.file}` : `read_skill ${args.name}`),
    async execute(args, ctx) {
      const skill = catalog.byName.get(args.name);
      if (!skill) throw new ToolError(unknownSkill(catalog, args.name));
      const shownName = args.file ?? "SKILL.md";
      const header = `[skill ${skill.name}: ${args.file === undefined ? skill.file : args.file}]`;
      const max = ctx.config.skills.max_skill_bytes;
      const cutNote = (bytes: number, why: string) => `\n[${shownName} cut at ${bytes} bytes (${why}); the rest is not shown]`;
      const room = ctx.outputLimitBytes - Buffer.byteLength(header) - 1 - Buffer.byteLength(cutNote(max, FIT_OUTPUT));
      const limit = Math.max(1, Math.min(max, room));
      let read;
      try {
        read = readSkill(skill, limit, args.file);
      } catch (e) {
        if (e instanceof SkillReadError) throw new ToolError(e.message);
        throw e;
      }
      const note = read.truncated ? cutNote(limit, limit < max ? FIT_OUTPUT : "skills.max_skill_bytes") : "";
      return {
        ok: true,
        output: `${header}\n${read.text}${note}`,
        event: { skill: skill.name, ...(args.file === undefined ? {} : { file: args.file }), truncated: read.truncated },
      };
    },
  });
}

/** Names only from the map; a project skill's plain name gets a pointer to its full name, never the skill. */
function unknownSkill(catalog: SkillCatalog, name: string): string {
  const prefixed = catalog.skills.filter((s) => s.kind === "project" && s.name.endsWith(`:${name}`)).map((s) => s.name);
  if (prefixed.length) return `no skill is named ${JSON.stringify(name)}; project skills take their project prefix: ${prefixed.join(", ")}`;
  const names = catalog.skills.map((s) => s.name);
  const shown = names.slice(0, 20).join(", ") + (names.length > 20 ? `, and ${names.length - 20} more` : "");
  return `no skill is named ${JSON.stringify(name)}; read_skill takes a name listed in the system prompt (${shown}), not a path`;
}

/** The *Skills* and *Project skills* sections, present exactly when the session offers `read_skill`. */
export function skillsPromptSections(scope: SessionScope, tools: ToolRegistry): string[] {
  if (!tools.get("read_skill")) return [];
  const { skills } = sessionSkills(scope);
  return [userSkillsSection(skills), projectSkillsSection(skills, !!tools.get("agent"))].filter((s): s is string => !!s);
}
