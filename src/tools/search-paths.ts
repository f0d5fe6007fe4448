// What grep and glob share about their `path` and `glob` arguments: where the search starts, whether the caller
// named a secret-like path (then it needs approval and what lies under it is searched), and the file-name filter.
import * as fs from "node:fs";
import * as path from "node:path";
import { ToolError } from "../errors";
import { isSecretLikePath, resolveInWorkspace } from "../fs/workspace-paths";

/** The real path the search starts at (the workspace when no path is given); refuses escapes. */
export function searchStart(workspace: string, requested: string | undefined): string {
  return resolveInWorkspace(workspace, requested ?? ".");
}

/** A path the caller gave that looks like it holds secrets, as written or where a symlink leads. */
export function namedSecretLike(workspace: string, requested: string | undefined): boolean {
  if (requested === undefined) return false;
  if (isSecretLikePath(requested)) return true;
  const rel = path.relative(fs.realpathSync(workspace), searchStart(workspace, requested));
  return isSecretLikePath(rel);
}

/** A search's risk: read-only, unless it names a secret-like path (then it asks, like `read` of one). */
export function searchRisk(args: { path?: string }, ctx: { workspace: string }): "filesystem" | "read_only" {
  return namedSecretLike(ctx.workspace, args.path) ? "filesystem" : "read_only";
}

/**
 * A file filter from a glob (Bun's Glob syntax): one with a `/` matches the workspace-relative path, one without
 * matches the file name at any depth (`*.ts`).
 */
export function globFilter(glob: string | undefined): (rel: string) => boolean {
  if (glob === undefined) return () => true;
  let compiled: Bun.Glob;
  try {
    compiled = new Bun.Glob(glob);
  } catch (e) {
    throw new ToolError(`glob ${JSON.stringify(glob)} is not a valid pattern: ${(e as Error).message}`);
  }
  if (glob.includes("/")) return (rel) => compiled.match(rel);
  return (rel) => compiled.match(rel.slice(rel.lastIndexOf("/") + 1));
}
