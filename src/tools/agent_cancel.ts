// `agent_cancel`: stops a running background job the way closing the session would.
import { jobsFor } from "../agents/jobs";
import { lazySchema } from "../lazy-schema";
import { jobToolsOffered } from "../agents/engine";
import { type SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";

export const AgentCancelArgs = lazySchema((z) => z.strictObject({ job: z.string().min(1, "name a job handle such as job-1") }));

export function createAgentCancelTool(scope: SessionScope): Tool | undefined {
  if (!jobToolsOffered(scope)) return undefined;
  return defineTool({
    name: "agent_cancel",
    kind: "other",
    description:
      "Stop a background job and all it started. No report follows.",
    parameters: AgentCancelArgs,
    risk: "process",
    summary: (a) => {
      const job = jobsFor(scope).get(a.job);
      return `agent_cancel ${a.job}: stop the ${job.agent} job started ${Math.round((Date.now() - job.startedAt) / 1000)} s ago and every process it started`;
    },
    async execute(args) {
      const view = await jobsFor(scope).cancel(args.job);
      const settled = view.status !== "running";
      return { ok: settled, output: JSON.stringify(view), ...(settled ? { event: { jobs_settled: [view.job] } } : {}) };
    },
  });
}
