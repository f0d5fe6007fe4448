// The reasoning settings a profile, a session and `scv exec --effort` accept. A module of its own, free of zod,
// so the CLI can list them in `--help` without loading the configuration schema.
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
export const REASONING_SUMMARIES = ["auto", "concise", "detailed", "none"] as const;
