// The `write` tool: creates or replaces a workspace file atomically (atomic-write.ts: temporary file, flush,
// link or rename, directory flush).
import { sha256Hex } from "../digest";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { checkMode, lstatOrUndefined, writeAtomically } from "./atomic-write";
import { type SessionScope } from "../scope";
import { defineTool, fileChange, type Tool, type ToolCallContext } from "./tool";
import { resolve } from "node:path";
import { lineCounts, unifiedDiff } from "./line-diff";
import { changePreview, currentText } from "./write-preview";
import { redactSecrets } from "../text/redact";

/** The unified diff a write's result event carries for clients (ACP) and replays, bounded as edit's. */
const EVENT_DIFF_LINES = 400;
import { displayPath, resolveInWorkspace, WorkspacePath } from "../fs/workspace-paths";

export const WriteArgs = lazySchema((z) => z
  .strictObject({
    path: WorkspacePath,
    content: z
      .string()
      // A lone surrogate has no UTF-8 form; writing it would silently store U+FFFD instead.
      .refine((c) => c.isWellFormed(), "must be valid Unicode text: it contains an unpaired surrogate (\\uD800-\\uDFFF), which has no UTF-8 form")
      .describe("The whole new content"),
    mode: z
      .enum(["create", "replace"], { error: 'must be "create" (the file must not exist) or "replace" (it must exist)' })
      .describe("create or replace"),
    expected_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hexadecimal digits: the sha256 of the file's current bytes")
      .optional()
      .describe("For replace: the sha256 you last saw"),
  })
  .refine((a) => !(a.mode === "create" && a.expected_sha256 !== undefined), {
    message: 'applies only to mode "replace"; a file being created has no previous content',
    path: ["expected_sha256"],
  }));
type WriteArgs = z.infer<typeof WriteArgs>;

export { CREATE_FILE_MODE } from "./atomic-write";

export function createWriteTool(scope: SessionScope): Tool {
  return defineTool({
    name: "write",
    kind: "edit",
    description:
      "Write a whole UTF-8 workspace file: mode create (fails if it exists) or replace (fails if missing). " +
      "expected_sha256 makes it fail rather than overwrite changes you have not seen.",
    parameters: WriteArgs,
    risk: "filesystem",
    summary: (args, ctx) => {
      const real = precheck(args, ctx); // refuse escapes and mode mismatches before anyone is asked
      const head = `write ${displayPath(args.path)} (${args.mode}, ${Buffer.byteLength(args.content)} bytes)`;
      return `${head}\n${changePreview(args, real)}`;
    },
    label: (args) => `write ${displayPath(args.path)}`,
    editsPath: (args) => args.path,
    change: (args, ctx) => {
      const before = args.mode === "create" ? null : currentText(resolveInWorkspace(ctx.workspace, args.path, { forWrite: true }));
      return before === undefined ? undefined : fileChange(resolve(ctx.workspace, args.path), before, args.content);
    },
    execute: async (args, ctx) => {
      const before = args.mode === "replace" ? currentText(resolveInWorkspace(ctx.workspace, args.path, { forWrite: true })) : "";
      const result = await writeFile(args, ctx, scope.scvHome);
      const diff = before === undefined ? undefined : unifiedDiff(before, args.content, { maxLines: EVENT_DIFF_LINES, maxChars: 1000 });
      // The diff rides in the event (bounded, masked) for clients and replays, as edit's does.
      return diff ? { ...result, event: { ...result.event, diff: diff.text.split("\n").map(redactSecrets).join("\n") }, display: lineCounts(diff.added, diff.removed) } : result;
    },
  });
}

function precheck(args: WriteArgs, ctx: ToolCallContext): string {
  const real = resolveInWorkspace(ctx.workspace, args.path, { forWrite: true });
  checkMode(args.mode, args.path, lstatOrUndefined(real));
  return real;
}

async function writeFile(args: WriteArgs, ctx: ToolCallContext, scvHome: string) {
  const data = Buffer.from(args.content, "utf8");
  const expectedSha256 = args.expected_sha256?.toLowerCase();
  await writeAtomically({
    workspace: ctx.workspace,
    scvHome,
    requested: args.path,
    data,
    mode: args.mode,
    ...(expectedSha256 ? { expectedSha256 } : {}),
    signal: ctx.signal,
    editor: ctx.services.editorFiles,
  });
  const sha256 = sha256Hex(data);
  const verb = args.mode === "create" ? "created" : "replaced";
  return {
    ok: true,
    output: `${verb} ${displayPath(args.path)}: wrote ${data.length} bytes, sha256=${sha256}`,
    preview: `${verb} ${displayPath(args.path)}: wrote ${data.length} bytes`,
    event: { path: args.path, mode: args.mode, bytes: data.length, sha256 },
  };
}
