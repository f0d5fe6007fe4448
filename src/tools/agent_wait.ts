// `agent_wait`: blocks until a background job finishes or the timeout passes.
import { jobsFor } from "../agents/jobs";
import { DEFAULT_AGENT_TIMEOUT_SECONDS, DEFAULT_MAX_TIMEOUT_SECONDS } from "../config/schema";
import { zod } from "../lazy-schema";
import { jobToolsOffered } from "../agents/engine";
import { type SessionScope } from "../scope";
import { defineTool, parametersByTimeouts, type Tool } from "./tool";

function waitArgs(dflt: number, max: number) {
  const z = zod();
  return z.strictObject({
    job: z.string().min(1, "name a job handle such as job-1"),
    timeout_seconds: z
      .number()
      .int("must be a whole number of seconds")
      .positive("must be greater than 0")
      .max(max, `must be at most ${max} (tools.max_timeout_seconds)`)
      .optional()
      .describe(`default ${dflt}, at most ${max}`),
  });
}
const WAIT_ARGS = parametersByTimeouts(waitArgs, [DEFAULT_AGENT_TIMEOUT_SECONDS, DEFAULT_MAX_TIMEOUT_SECONDS]);
export const DefaultAgentWaitArgs = WAIT_ARGS.prebuilt;

export function createAgentWaitTool(scope: SessionScope): Tool | undefined {
  if (!jobToolsOffered(scope)) return undefined;
  const { max_timeout_seconds: max } = scope.config.tools;
  const dflt = Math.min(scope.config.tools.agent_timeout_seconds, max);
  return defineTool({
    name: "agent_wait",
    kind: "read",
    description:
      "Wait up to timeout_seconds for a background job; returns its result, or its latest output if it still runs. Holds the turn: only for results needed now.",
    parameters: WAIT_ARGS.for(dflt, max),
    risk: "read_only",
    summary: (a) => `agent_wait ${a.job}`,
    async execute(args, ctx) {
      const jobs = jobsFor(scope);
      jobs.get(args.job);
      const view = await jobs.wait(args.job, (args.timeout_seconds ?? dflt) * 1000, ctx.signal);
      return { ok: true, output: JSON.stringify(view), ...(view.status === "running" ? {} : { event: { jobs_settled: [view.job] } }) };
    },
  });
}
