// The usage ledger and the session index (docs/architecture.md, "Usage ledger and session index"): what SCV's
// own model and every delegated agent spent, and listing and search of the stored sessions, from one SQLite
// file per SCV home that is rebuilt from the session files whenever it is missing, outdated or damaged.
export { Ledger, ledgerFor, listSessions, searchSessions, type LedgerOptions } from "./ledger";
export type { LedgerEntry } from "./entries";
export type { GroupBy, LimitReached, UsageQuery, UsageRow } from "./usage";
export { formatCost, formatTokens, tokens } from "./usage";
export { clientOrigin, conversationKey, turnOrigin } from "./entries";
export { createUsageRecorder } from "./recorder";
