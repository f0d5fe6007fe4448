// Shapes several protocol messages share (IDs, risk, the guard's verdict, usage, origin, goals, stored turns).
// Part of the one protocol schema: schema.ts is its entry, docs/protocol.md is generated from it.
import type { z, z as Zod } from "zod";
import { lazySchema } from "../lazy-schema";
import { PLAN_STATUSES } from "../plan/plan";

export const SessionId = lazySchema((z) => z.string().min(1).describe("from session.start"));
export const TurnId = lazySchema((z) => z.string().min(1));
export const Risk = lazySchema((z) => z.enum(["read_only", "filesystem", "process", "delegate", "network"]));
export const Guard = lazySchema((z) =>
  z
    .object({
      decision: z.enum(["allow", "prompt", "block"]),
      reason: z.string(),
      sandbox: z.string().optional().describe("how the command runs: `sandboxed: workspace-write (Landlock ABI 7, namespaces)` or `not sandboxed: …` with why"),
      person_only: z.boolean().optional().describe("only a person's answer approves it (a request to run outside the sandbox): a client must not answer it by itself (approve-all, auto-approval)"),
    })
    .describe("the command guard's verdict: `allow` runs unasked (literal and read-only, a kept rule, or confined by the sandbox), `prompt` asks, `block` is refused whoever approves"),
);
// Optional, so a client reading an SCV older than this field (a nested child) still parses the result.
export const ContextWindow = lazySchema((z) =>
  z.number().int().describe("the model's context window in tokens, as the session counts it (compaction starts at the profile's compact_at of it)"),
);
// Optional, so a client reading an SCV older than this field still parses the result.
export const ProviderName = lazySchema((z) => z.string().describe("the provider profile the session uses ([providers.<name>])"));
export const Notices = lazySchema((z) =>
  z.array(z.string()).describe("problems with files the session's instructions are made from (a memory file over its cap, not UTF-8 or not a regular file), each naming the file; the session goes on without the unusable part"),
);
export const Usage = lazySchema((z) => z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cached_input_tokens: z.number(),
  // A default, so a client reading an SCV older than this field (a nested child) still parses its usage.
  reasoning_tokens: z.number().default(0).describe("the part of output_tokens spent reasoning (0 when the endpoint reports none)"),
}));

export const Origin = lazySchema((z) => z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user") }),
  z.object({ kind: z.literal("background"), jobs: z.array(z.string()).describe("job handles reported in this turn") }),
  z.object({ kind: z.literal("goal"), attempt: z.number().int().describe("the goal's attempt this turn is (2 and on: SCV started it with the failed check's output)") }),
]));
export type Origin = z.infer<typeof Origin>;

export const PlanItems = lazySchema((z) => z.array(z.object({ text: z.string(), status: z.enum(PLAN_STATUSES) })));

const budget = (z: typeof Zod, what: string) =>
  z.number().int(`${what} must be a whole number`).positive(`${what} must be at least 1 (a budget of zero would stop before the first attempt; leave it out for the default)`);
/** A goal on turn.start: the check and its budget (defaults in goal.started). */
export const Goal = lazySchema((z) =>
  z
    .strictObject({
      check: z.string().refine((s) => s.trim().length > 0, "goal.check must be a shell command, not empty").describe("the shell command that passes (exit 0) when the work is done, e.g. `bun test`"),
      max_attempts: budget(z, "goal.max_attempts").optional().describe("turns at most (default 10)"),
      max_tokens: budget(z, "goal.max_tokens").optional().describe("model tokens (input and output) the goal's turns may use at most (default 2,000,000)"),
      max_seconds: budget(z, "goal.max_seconds").optional().describe("wall time at most (default 1800): the running turn is stopped when it is spent"),
      check_timeout_seconds: budget(z, "goal.check_timeout_seconds").optional().describe("how long one run of the check may take (default 600, at most tools.max_timeout_seconds); a check that hangs is killed and counts as failed"),
    })
    .describe("keep working until `check` passes, within the budget"),
);
export const GoalBudget = lazySchema((z) => z.object({ max_attempts: z.number().int(), max_tokens: z.number().int(), max_seconds: z.number().int(), check_timeout_seconds: z.number().int(), repeat_limit: z.number().int() }));

/** MCP servers a client brings (an editor's, over ACP): a program to start or a streamable HTTP URL. */
/**
 * The parent's sandbox, sent by an SCV that starts a nested SCV: the child's sandbox is at most this open (the
 * stricter mode, network only if both allow it, auto_run only if both do, only writable roots both list, every
 * path either hides, only sockets both allow; required if either requires it).
 */
export const SandboxCeiling = lazySchema((z) =>
  z
    .strictObject({
      mode: z.enum(["workspace-write", "read-only"]),
      network: z.boolean(),
      auto_run: z.union([z.boolean(), z.literal("always")]),
      required: z.boolean(),
      writable_roots: z.array(z.string().startsWith("/")).max(4096),
      hidden_paths: z.array(z.string().startsWith("/")).max(4096),
      allow_unix_sockets: z.array(z.string().startsWith("/")).max(4096),
    })
    .describe("a nested SCV's parent's sandbox: this session's sandbox is at most as open (see docs/security.md)"),
);

export const ClientMcpServers = lazySchema((z) =>
  z
    .array(
      z.union([
        z.strictObject({ name: z.string().min(1), command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional() }),
        z.strictObject({ name: z.string().min(1), url: z.string().min(1), headers: z.record(z.string(), z.string()).optional() }),
      ]),
    )
    .max(32)
    .describe("MCP servers the client brings (an editor's), added to the configured ones for this session; each connects only after approval, like a project's server"),
);

export const Questions = lazySchema((z) =>
  z.boolean().describe("the client puts the model's questions (the `clarify` tool) to a person and answers them with clarify.answer; without it a question is answered at once that nobody can answer here"),
);
/**
 * How a session asks: `ask` (each request as its risk says) or `accept-edits` (a file change inside the
 * workspace, `edit` or `write`, runs unasked unless its path looks secret-like; commands, network and MCP calls ask
 * as before).
 */
export const ApprovalMode = lazySchema((z) => z.enum(["ask", "accept-edits"]).describe("`accept-edits`: file edits inside the workspace run unasked (not secret-like paths); everything else asks as in `ask`"));

export const StoredTurn = lazySchema((z) => z.object({
  turn_id: TurnId,
  prompt: z.string(),
  origin: Origin,
  status: z.enum(["completed", "failed", "cancelled", "interrupted"]),
  reply: z.string(),
  usage: Usage.optional(),
  error: z.object({ class: z.string(), message: z.string() }).optional(),
  started_at: z.number().describe("Unix milliseconds"),
  ended_at: z.number().optional(),
  calls: z
    .array(
      z.object({
        tool: z.string(),
        label: z.string(),
        display: z.string().optional(),
        ok: z.boolean(),
        denied: z.boolean().optional(),
        kind: z.string().optional().describe("the tool's kind, as in tool.started"),
        path: z.string().optional().describe("the file a file tool changed, as the call named it"),
        diff: z.string().optional().describe("that change as a bounded unified diff (credential-looking values masked)"),
        output: z.string().optional().describe("for other calls, the first lines of what the call returned (masked)"),
      }),
    )
    .optional()
    .describe("the turn's tool calls as they were shown (label and outcome, as in tool.started and tool.completed), for a replay"),
}));
