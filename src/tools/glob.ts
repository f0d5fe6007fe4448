// The `glob` tool: workspace file names matching a glob (Bun's Glob), newest first, capped. Read-only; the walk
// is grep's (ignore files, no .git, no secret-like paths unless named), with the same time limit.
import * as fs from "node:fs";
import * as path from "node:path";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { GREP_TIME_LIMIT_MS } from "./grep";
import { namedSecretLike, searchRisk, searchStart } from "./search-paths";
import { ToolError } from "../errors";
import type { SessionScope } from "../scope";
import { defineTool, type Tool, type ToolCallContext, type ToolResult } from "./tool";
import { displayPath, WorkspacePath } from "../fs/workspace-paths";
import { walkWorkspace, type WalkCounts } from "../fs/workspace-walk";
import { counted } from "../text/plural";

export const GlobArgs = lazySchema((z) => z.strictObject({
  pattern: z.string().min(1, "must not be empty").max(500).describe("Relative to path"),
  path: WorkspacePath.optional(),
}));
type GlobArgs = z.infer<typeof GlobArgs>;

export const GLOB_MAX_RESULTS = 200;
const YIELD_EVERY_MS = 25;

export function createGlobTool(_scope: SessionScope): Tool {
  return defineTool({
    name: "glob",
    kind: "search",
    description:
      'Find workspace files matching a glob such as "**/*.ts", newest first, honouring .gitignore. Use instead of ' +
      "find or ls -R in bash.",
    parameters: GlobArgs,
    risk: searchRisk,
    summary: (args, ctx) => {
      compileGlob(args.pattern);
      searchStart(ctx.workspace, args.path);
      return `glob ${args.pattern}${args.path ? ` in ${displayPath(args.path)}` : ""}`;
    },
    execute: (args, ctx) => glob(args, ctx),
  });
}

function compileGlob(pattern: string): Bun.Glob {
  try {
    return new Bun.Glob(pattern.replace(/^\.\//, ""));
  } catch (e) {
    throw new ToolError(`glob ${JSON.stringify(pattern)} is not a valid pattern: ${(e as Error).message}`);
  }
}

async function glob(args: GlobArgs, ctx: ToolCallContext): Promise<ToolResult> {
  const matcher = compileGlob(args.pattern);
  const workspace = fs.realpathSync(ctx.workspace);
  const start = searchStart(ctx.workspace, args.path);
  const base = path.relative(workspace, start).split(path.sep).join("/");
  const deadline = performance.now() + GREP_TIME_LIMIT_MS;
  let timedOut = false;
  const counts: WalkCounts = { ignored: 0, secretLike: 0 };
  const found: { rel: string; mtime: number }[] = [];
  const walk = walkWorkspace({ workspace, start, includeSecretLike: namedSecretLike(ctx.workspace, args.path), stop: () => ctx.signal.aborted || timedOut }, counts);
  let lastYield = performance.now();
  for (const file of walk) {
    const relToStart = base ? file.rel.slice(base.length + 1) : file.rel;
    if (matcher.match(relToStart)) {
      try {
        found.push({ rel: file.rel, mtime: fs.lstatSync(file.abs).mtimeMs });
      } catch {
        // gone meanwhile
      }
    }
    const now = performance.now();
    if (now > deadline) timedOut = true;
    if (now - lastYield > YIELD_EVERY_MS) {
      ctx.progress(`${counted(found.length, "file")} found`);
      await new Promise((r) => setImmediate(r));
      lastYield = performance.now();
    }
  }
  if (ctx.signal.aborted) throw new ToolError("cancelled");
  found.sort((a, b) => b.mtime - a.mtime || (a.rel < b.rel ? -1 : 1));
  const shown = found.slice(0, GLOB_MAX_RESULTS).map((f) => displayPath(f.rel));
  const notes: string[] = [];
  if (found.length > shown.length) notes.push(`${found.length - shown.length} more files not shown (newest first); narrow the pattern or path`);
  if (timedOut) notes.push(`stopped after ${GREP_TIME_LIMIT_MS / 1000} s; results are partial: narrow the path`);
  if (counts.ignored) notes.push(`${counted(counts.ignored, "entry", "entries")} ignored by .gitignore/.ignore`);
  if (counts.secretLike) notes.push(`${counts.secretLike} secret-like ${counts.secretLike === 1 ? "entry" : "entries"} skipped (name the path to list them)`);
  const head = found.length ? `${counted(found.length, "file")} match${found.length === 1 ? "es" : ""} ${JSON.stringify(args.pattern)}` : `no files match ${JSON.stringify(args.pattern)}`;
  return {
    ok: true,
    output: [head, ...shown, ...notes.map((n) => `[${n}]`)].join("\n"),
    display: counted(found.length, "file"),
    event: { files: found.length, truncated: found.length > shown.length || timedOut },
  };
}
