// `memory`: adds, replaces or removes a note in the owner's memory files (src/memory): USER.md about the owner,
// or this workspace's project notes. Offered only in owner sessions with memory enabled; a write never passes
// the file's cap (the refusal says how much room is left) and text that looks like a key is never written.
import { SafeReadError } from "../fs/safe-read";
import { lazySchema } from "../lazy-schema";
import { redactSecrets } from "../text/redact";
import {
  applyMemoryEdit,
  fileTitle,
  type MemoryEdit,
  MemoryEditError,
  MemoryFullError,
  memoryCap,
  memoryPlaceOf,
  memorySecrets,
  type MemoryScope,
  planMemoryEdit,
  refuseSecrets,
  SAVE_STEP_MAX_CALLS,
  SAVE_STEP_PROMPT,
  updateMemory,
} from "../memory/index";
import { lineCounts, unifiedDiff } from "./line-diff";
import { ToolError } from "../errors";
import type { SessionScope } from "../scope";
import { defineTool, type Tool, type ToolRegistry } from "./tool";

export const MemoryArgs = lazySchema((z) =>
  z
    .strictObject({
      action: z.enum(["add", "replace", "remove"]),
      scope: z.enum(["user", "project"]),
      text: z.string().max(4096).optional().describe("For add and replace"),
      old_text: z.string().max(4096).optional().describe("For replace and remove"),
    })
    .superRefine((a, ctx) => {
      if (a.action !== "remove" && a.text === undefined) ctx.addIssue({ code: "custom", path: ["text"], message: `required for ${a.action}` });
      if (a.action !== "add" && a.old_text === undefined) ctx.addIssue({ code: "custom", path: ["old_text"], message: `required for ${a.action}` });
    }),
);

type Args = { action: "add" | "replace" | "remove"; scope: MemoryScope; text?: string; old_text?: string };

const PREVIEW = { maxLines: 30, maxChars: 200 };

function editOf(a: Args): MemoryEdit {
  if (a.action === "add") return { action: "add", text: a.text ?? "" };
  if (a.action === "replace") return { action: "replace", old_text: a.old_text ?? "", text: a.text ?? "" };
  return { action: "remove", old_text: a.old_text ?? "" };
}

/** Refusals and unusable files become the call's result, in their own words. */
function asToolError(e: unknown): unknown {
  return e instanceof MemoryEditError || e instanceof MemoryFullError || e instanceof SafeReadError ? new ToolError(e.message) : e;
}

export function createMemoryTool(scope: SessionScope): Tool | undefined {
  const place = memoryPlaceOf(scope);
  if (!place) return undefined;
  const caps = `USER.md holds at most ${place.config.user_max_bytes} bytes, the project notes ${place.config.project_max_bytes}`;
  return defineTool({
    name: "memory",
    kind: "edit",
    description:
      `Save, correct or drop a note later sessions see: scope user (USER.md: preferences, standing instructions) or project (this workspace). ` +
      `add text; replace old_text (quoted exactly) with text; remove old_text. ${caps}: when full, consolidate. Never save secrets.`,
    parameters: MemoryArgs,
    risk: "filesystem",
    label: (a) => `memory ${a.action} ${fileTitle(a.scope)}`,
    summary(a) {
      try {
        if (a.text) refuseSecrets(a.text, memorySecrets(scope));
        const { before, after } = planMemoryEdit(place, a.scope, (current) => applyMemoryEdit(current, editOf(a), fileTitle(a.scope)));
        const diff = unifiedDiff(before, after, PREVIEW);
        // A file edited by hand may hold what the tool would refuse: the approval view masks it, as write's does.
        const shown = diff.text.split("\n").map(redactSecrets).join("\n");
        return `memory ${a.action} ${fileTitle(a.scope)} (${Buffer.byteLength(after)} of ${memoryCap(place, a.scope)} bytes after), ${lineCounts(diff.added, diff.removed)}:\n${shown}`;
      } catch (e) {
        throw asToolError(e);
      }
    },
    async execute(a) {
      try {
        // Checked again: the file may have changed while the call waited for approval.
        if (a.text) refuseSecrets(a.text, memorySecrets(scope));
        const { before, after, file } = updateMemory(place, a.scope, (current) => applyMemoryEdit(current, editOf(a), fileTitle(a.scope)));
        const diff = unifiedDiff(before, after, PREVIEW);
        const size = Buffer.byteLength(after);
        const cap = memoryCap(place, a.scope);
        const over = size > cap ? ` It is still ${size - cap} bytes over its cap (edited by hand): remove or shorten more notes.` : "";
        return {
          ok: true,
          output: `Saved to ${fileTitle(a.scope)} (${file}): now ${size} of ${cap} bytes, ${Math.max(0, cap - size)} left. Later sessions see it in their instructions.${over}`,
          display: `${lineCounts(diff.added, diff.removed)}, ${size} of ${cap} bytes`,
        };
      } catch (e) {
        throw asToolError(e);
      }
    },
  });
}

/** The save step before a compaction (server/turn.ts runs it): offered when this session has the memory tool. */
export function memorySaveStep(tools: ToolRegistry): { prompt: string; tools: string[]; maxCalls: number } | undefined {
  return tools.get("memory") ? { prompt: SAVE_STEP_PROMPT, tools: ["memory"], maxCalls: SAVE_STEP_MAX_CALLS } : undefined;
}
