// `agent_wait`: blocks until a background job finishes or the timeout passes.
import { jobsFor } from "../agents/jobs";
import { DEFAULT_AGENT_TIMEOUT_SECONDS, DEFAULT_MAX_TIMEOUT_SECONDS } from "../config/schema";
import { lazySchema, zod } from "../lazy-schema";
import { jobToolsOffered } from "./agent";
import { defineTool, type SessionScope, type Tool } from "./tool";

/** The parameters for a timeout pair; their JSON Schema is then converted once per process, not per session. */
function waitArgs(dflt: number, max: number, z = zod()) {
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
/** The parameters under the default timeouts, whose JSON Schema is made at build time (tools/parameters.ts). */
export const DefaultAgentWaitArgs = lazySchema((z) => waitArgs(DEFAULT_AGENT_TIMEOUT_SECONDS, DEFAULT_MAX_TIMEOUT_SECONDS, z));
const argsByTimeouts = new Map<string, ReturnType<typeof waitArgs>>([[`${DEFAULT_AGENT_TIMEOUT_SECONDS}/${DEFAULT_MAX_TIMEOUT_SECONDS}`, DefaultAgentWaitArgs]]);

export function createAgentWaitTool(scope: SessionScope): Tool | undefined {
  if (!jobToolsOffered(scope)) return undefined;
  const { max_timeout_seconds: max } = scope.config.tools;
  const dflt = Math.min(scope.config.tools.agent_timeout_seconds, max);
  const key = `${dflt}/${max}`;
  let parameters = argsByTimeouts.get(key);
  if (!parameters) argsByTimeouts.set(key, (parameters = waitArgs(dflt, max)));
  return defineTool({
    name: "agent_wait",
    description:
      "Wait for a background job started with agent (background: true) to finish, up to timeout_seconds. Returns {job, agent, status, elapsed_seconds, result} when it finished, or status running with its latest progress line. It holds this turn open, so use it only for quick results you need now.",
    parameters,
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
