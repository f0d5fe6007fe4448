// `skill_manage`: the model creates, updates or deletes one of the owner's skills. Nothing changes until the owner
// accepts: the call keeps a draft (src/skills/drafts.ts) that no session reads, and the approval card shows the
// whole folder as a diff against the skill as it is. Owner sessions only; a skill that carries a secret, in any
// encoding SCV knows, is refused as memory refuses one.
import { configuredSecrets } from "../config/configured-secrets";
import { ToolError } from "../errors";
import { lazySchema } from "../lazy-schema";
import type { SessionScope } from "../scope";
import { acceptDraft, checkDraft, currentFiles, type DraftInput, listDrafts, rejectDraft, SkillDraftError, writeDraft } from "../skills/index";
import { secretIn } from "../text/scrub";
import { lineCounts, unifiedDiff } from "./line-diff";
import { sessionSkills } from "./read_skill";
import { defineTool, type Tool } from "./tool";

export const SkillManageArgs = lazySchema((z) => z.strictObject({
  action: z.enum(["create", "update", "delete"], { error: 'must be "create", "update" or "delete"' }),
  name: z.string().min(1, "must not be empty").max(64, "must be at most 64 characters").describe("Folder name"),
  skill: z.string().max(1_048_576, "must be at most 1 MiB (a skill folder holds at most 256 KiB)").optional().describe("Whole SKILL.md (front matter: name, description)"),
  files: z.record(z.string(), z.string()).optional().describe("Other files by relative path"),
}));

export function createSkillManageTool(scope: SessionScope): Tool | undefined {
  if (!scope.owner || scope.unattended || !scope.config.skills.enabled) return undefined;
  const checked = new WeakMap<object, Record<string, string>>();
  const check = (args: DraftInput) => {
    let files = checked.get(args);
    if (!files) {
      try {
        files = checkDraft(args, { projectSkillNames: sessionSkills(scope).skills.filter((s) => s.kind === "project").map((s) => s.name), scvHome: scope.scvHome });
      } catch (e) {
        if (e instanceof SkillDraftError) throw new ToolError(e.message);
        throw e;
      }
      refuseSecrets(scope, files);
      checked.set(args, files);
    }
    return files;
  };
  return defineTool({
    name: "skill_manage",
    kind: "edit",
    description:
      "Create, update or delete a user skill (a folder with SKILL.md) for later sessions; a draft until accepted. No secrets.",
    parameters: SkillManageArgs,
    risk: (args) => {
      check(args);
      return "filesystem";
    },
    summary: (args) =>
      `${args.action} skill ${args.name} (a draft: used only after you accept it with scv skills accept ${args.name})\n${draftDiff(scope.scvHome, args.name, check(args))}`,
    label: (args) => `skill_manage ${args.action} ${args.name}`,
    async execute(args, ctx) {
      const files = check(args);
      const draft = writeDraft(scope.scvHome, args, files, ctx.sessionId);
      const what = draft.action === "delete" ? "removal of skill" : draft.action === "create" ? "new skill" : "change to skill";
      return {
        ok: true,
        output: `kept as a draft (${what} ${draft.name}); no session uses it until the user accepts it with scv skills accept ${draft.name} (or /skills in the TUI or their chat). Tell the user.`,
        display: `draft kept: scv skills accept ${draft.name}`,
      };
    },
  });
}

/** The whole draft as a diff against the skill as it is, file by file (SKILL.md first): what accepting changes. */
export function draftDiff(scvHome: string, name: string, files: Record<string, string>): string {
  const before = currentFiles(scvHome, name);
  const order = (a: string, b: string) => (a === "SKILL.md" ? -1 : b === "SKILL.md" ? 1 : a.localeCompare(b));
  const paths = [...new Set([...Object.keys(before), ...Object.keys(files)])].sort(order);
  const parts: string[] = [];
  for (const path of paths) {
    const diff = unifiedDiff(before[path] ?? "", files[path] ?? "", { maxLines: 4000, maxChars: 400 });
    if (!diff.added && !diff.removed) continue;
    const what = before[path] === undefined ? "new file" : files[path] === undefined ? "deleted" : lineCounts(diff.added, diff.removed);
    parts.push(`--- ${path} (${what})\n${diff.text}`);
  }
  return parts.join("\n");
}

/** A skill that holds a key (in any encoding memory refuses: base64, hex, reversed, spaced…) or something shaped like one is not kept. */
function refuseSecrets(scope: SessionScope, files: Record<string, string>): void {
  const secrets = configuredSecrets(scope.config, scope.env as NodeJS.ProcessEnv, scope.config.provider.active);
  for (const [path, text] of Object.entries(files)) {
    const found = secretIn(text, secrets);
    if (found) {
      throw new ToolError(`not kept: ${path} looks like it holds ${found}; skills never store keys, tokens or passwords. Name where the secret is kept (an environment variable) instead.`);
    }
  }
}

/**
 * The drafts as a person reads them (scv skills drafts, /skills in the TUI and the owner's chat): each with what
 * it does, how to accept or reject it (`how` words the command where the person is), and its whole diff.
 */
export function draftsReport(scvHome: string, how: (verb: "accept" | "reject", name: string) => string): string {
  const all = listDrafts(scvHome);
  if (all.length === 0) return "no skill drafts: when SCV writes a skill (skill_manage), it waits here for you to accept it";
  const out: string[] = [];
  for (const d of all) {
    if ("problem" in d) {
      out.push(`${d.name}: damaged draft (${d.problem}); ${how("reject", d.name)} removes it`);
      continue;
    }
    out.push(`${d.name}: ${d.action === "delete" ? "remove this skill" : d.action === "create" ? "a new skill" : "a change"}, drafted ${d.created_at}${d.session ? ` in session ${d.session}` : ""}`);
    out.push(`  accept: ${how("accept", d.name)}    reject: ${how("reject", d.name)}`);
    out.push(draftDiff(scvHome, d.name, d.files));
  }
  return out.join("\n");
}

/** Accepts or rejects a draft; the outcome in words, or a SkillDraftError saying why not. */
export function decideDraft(scvHome: string, verb: "accept" | "reject", name: string): string {
  const d = verb === "accept" ? acceptDraft(scvHome, name) : rejectDraft(scvHome, name);
  return `${d.name}: ${verb === "reject" ? "thrown away" : d.action === "delete" ? "removed the skill" : "in place; new sessions see it"}`;
}
