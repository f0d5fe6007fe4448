// The chat side of the usage ledger: the owner's `/usage` (today's and this month's spend), the limits of a
// conversation with someone other than the owner ([limits] conversation_daily_*), and the one notice the owner
// gets when a limit is reached. The ledger loads at the first use.
import type { Config } from "../../config/schema";
import { counted } from "../../text/plural";

/** `/usage` for the owner: today's and this month's tokens (and costs where priced), by who spent them. */
export async function usageReport(home: string, config: Config): Promise<string> {
  const { ledgerFor, formatCost, formatTokens, tokens } = await import("../../ledger/index");
  const { dayBounds, monthBounds } = await import("../../ledger/usage");
  const ledger = ledgerFor(home);
  const now = Date.now();
  const lines: string[] = [];
  for (const [label, since] of [["Today", dayBounds(now).start], ["This month", monthBounds(now).start]] as const) {
    const { rows, total } = await ledger.usage(config, { since, by: "agent" });
    const cost = total.cost === undefined ? "" : `, cost ${total.estimated ? "about " : ""}${formatCost(total.cost)}${total.unpriced_tokens ? "+" : ""}`;
    const parts = rows.map((r) => `${r.key} ${formatTokens(tokens(r))}`).join(", ");
    lines.push(`${label}: ${formatTokens(tokens(total))} tokens in ${counted(total.requests, "call")}${cost}${parts ? ` (${parts})` : ""}`);
  }
  return lines.join("\n");
}

/** Why a conversation with someone other than the owner gets no turn now (its own limit), or undefined. */
export async function conversationRefusal(home: string, config: Config, place: { kind: string; account: string; conversation: string }): Promise<{ message: string; first: boolean } | undefined> {
  const l = config.limits;
  if (l.conversation_daily_tokens === undefined && l.conversation_daily_cost === undefined) return undefined;
  const { ledgerFor, conversationKey } = await import("../../ledger/index");
  const ledger = ledgerFor(home);
  const key = conversationKey(place)!;
  const reached = await ledger.limitReached({ prices: config.prices, limits: { conversation_daily_tokens: l.conversation_daily_tokens, conversation_daily_cost: l.conversation_daily_cost } }, key);
  if (!reached) return undefined;
  return { message: `SCV will not answer here for now: ${reached.message}`, first: await ledger.firstNotice(`${reached.key}@${key}@${reached.resetsAt}`) };
}
