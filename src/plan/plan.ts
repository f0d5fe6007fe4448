// The model's task list for the work at hand (the `plan` tool): what it holds, how a person reads it, and where a
// session keeps it. Clients get it as the `plan.updated` notification; the session record keeps each version, so a
// resumed session shows the last one. No imports: the TUI, exec and chat bridges use it without loading tools.

export const PLAN_STATUSES = ["pending", "in_progress", "done"] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export interface PlanItem {
  text: string;
  status: PlanStatus;
}

/** The session's current plan, kept in SessionScope.services.plan. */
export interface PlanState {
  items: PlanItem[];
}

/** The session's current plan from its services (empty when the model has made none). */
export function currentPlan(services: { plan?: PlanState }): PlanItem[] {
  return services.plan?.items ?? [];
}

const MARK: Record<PlanStatus, string> = { done: "[x]", in_progress: "[>]", pending: "[ ]" };

/** One line per item, `[x] done`, `[>] under way`, `[ ] to do`. */
export function planLines(items: readonly PlanItem[]): string[] {
  return items.map((i) => `${MARK[i.status]} ${i.text}`);
}

/** `2/5 done` */
export function planProgress(items: readonly PlanItem[]): string {
  return `${items.filter((i) => i.status === "done").length}/${items.length} done`;
}

/** The plan as a chat message or a terminal block. */
export function planText(items: readonly PlanItem[] | undefined): string {
  if (!items?.length) return "No plan: the model has not made one in this conversation.";
  return [`Plan (${planProgress(items)}):`, ...planLines(items)].join("\n");
}
