// The `plan` tool: the model keeps a short task list while it works. Each call replaces the list; the client is
// told (`plan.updated`), the session record keeps it, and a resumed session starts from the last one.
import { lazySchema } from "../lazy-schema";
import { PLAN_STATUSES, planProgress, type PlanItem, type PlanState } from "../plan/plan";
import type { SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";

const MAX_ITEMS = 30;

export const PlanArgs = lazySchema((z) => z
  .strictObject({
    items: z
      .array(
        z.strictObject({
          text: z.string().trim().min(1, "must not be empty").max(300, "must be at most 300 characters: one short step"),
          status: z.enum(PLAN_STATUSES, { error: 'must be "pending", "in_progress" or "done"' }),
        }),
      )
      .max(MAX_ITEMS, `at most ${MAX_ITEMS} steps; merge small ones`),
  })
  .refine((a) => a.items.filter((i) => i.status === "in_progress").length <= 1, { message: "at most one step may be in_progress at a time", path: ["items"] }));

export function createPlanTool(scope: SessionScope): Tool {
  const state: PlanState = { items: scope.journal?.restored?.plan ?? [] };
  scope.services.plan = state;
  return defineTool({
    name: "plan",
    kind: "think",
    description:
      "A short task list for multi-step work, shown to the user; each call replaces it (the current step " +
      "in_progress, finished ones done; empty clears it).",
    parameters: PlanArgs,
    risk: "read_only",
    summary: (args) => `plan: ${args.items.length ? planProgress(args.items) : "cleared"}`,
    execute: async (args, ctx) => {
      const items: PlanItem[] = args.items.map((i) => ({ text: i.text, status: i.status }));
      state.items = items;
      scope.journal?.recorder.append({ type: "plan", items });
      ctx.notify?.("plan.updated", { session_id: ctx.sessionId, items });
      // The label already says how far the plan is and the client shows the plan itself (plan.updated): nothing
      // more under the call's line, so a person reads each change once.
      return { ok: true, output: items.length ? `plan updated (${planProgress(items)})` : "plan cleared", preview: "" };
    },
  });
}

