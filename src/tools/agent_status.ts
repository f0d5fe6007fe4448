// `agent_status`: describes one background job, or every job the session remembers.
import { jobsFor } from "../agents/jobs";
import { lazySchema } from "../lazy-schema";
import { jobToolsOffered } from "../agents/engine";
import { type SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";

export const AgentStatusArgs = lazySchema((z) => z.strictObject({ job: z.string().min(1).optional() }));

export function createAgentStatusTool(scope: SessionScope): Tool | undefined {
  if (!jobToolsOffered(scope)) return undefined;
  return defineTool({
    name: "agent_status",
    kind: "read",
    description:
      "Background jobs (agents, commands): one by handle, or all, with the latest output or the result.",
    parameters: AgentStatusArgs,
    risk: "read_only",
    summary: (a) => `agent_status ${a.job ?? "(all jobs)"}`,
    async execute(args) {
      const jobs = jobsFor(scope);
      const views = (args.job ? [jobs.get(args.job)] : jobs.list()).map((j) => jobs.describe(j, true));
      const settled = views.filter((v) => v.status !== "running").map((v) => v.job);
      // jobs_settled tells clients (scv exec) these results reached the model, so no report turn will follow.
      const event = settled.length ? { jobs_settled: settled } : undefined;
      return { ok: true, output: JSON.stringify(args.job ? views[0] : { jobs: views }), ...(event ? { event } : {}) };
    },
  });
}
