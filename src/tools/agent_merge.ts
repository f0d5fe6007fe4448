// `agent_merge`: merges a background job's worktree branch into the current branch (fast-forward or a merge
// commit; a conflict is aborted and reported, nothing half-applied). It always asks a person: auto-approval does
// not answer it.
import { jobToolsOffered } from "../agents/engine";
import { looksLikeGitRepository } from "../agents/worktree";
import { lazySchema } from "../lazy-schema";
import { type SessionScope } from "../scope";
import { ToolError } from "../errors";
import { defineTool, type Tool } from "./tool";

export const AgentMergeArgs = lazySchema((z) => z.strictObject({ job: z.string().min(1, "name the job handle whose worktree to merge, such as job-1") }));

export function createAgentMergeTool(scope: SessionScope): Tool | undefined {
  if (!jobToolsOffered(scope) || scope.config.agent.max_background === 0 || !looksLikeGitRepository(scope.workspace)) return undefined;
  const worktree = () => import("../agents/worktree");
  const find = async (job: string) => {
    const w = await worktree();
    try {
      const record = w.findWorktree(scope.scvHome, scope.workspace, job);
      return { record, report: w.finishWorktree(record) };
    } catch (e) {
      throw new ToolError((e as Error).message);
    }
  };
  return defineTool({
    name: "agent_merge",
    kind: "other",
    description: "Merge a finished job's worktree branch into the current branch (asks the person)",
    parameters: AgentMergeArgs,
    risk: "filesystem",
    guard: () => ({ decision: "prompt", reason: "a merge into your current branch is asked of a person every time", personOnly: true }),
    summary: async (a) => {
      const { record, report } = await find(a.job);
      return [`agent_merge ${a.job}: merge ${record.branch} into the current branch of ${record.repo}`, `${report.commits.length} commit(s), ${report.diffstat}`, ...report.commits.slice(0, 10).map((c) => `  ${c}`)].join("\n");
    },
    label: (a) => `agent_merge ${a.job}`,
    async execute(args) {
      const { record } = await find(args.job);
      const w = await worktree();
      let r: Awaited<ReturnType<typeof w.mergeWorktree>>;
      try {
        r = w.mergeWorktree(scope.scvHome, record);
      } catch (e) {
        throw new ToolError((e as Error).message);
      }
      if (!r.merged) return { ok: false, output: JSON.stringify({ job: args.job, branch: record.branch, merged: false, conflicts: r.conflicts, message: r.message }), display: `not merged: ${r.conflicts.length ? `conflicts in ${r.conflicts.join(", ")}` : "failed"}` };
      return { ok: true, output: JSON.stringify({ job: args.job, branch: record.branch, merged: true, how: r.how, commits: r.commits.length }), display: `merged (${r.how})` };
    },
  });
}
