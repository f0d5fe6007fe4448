// Reading which background jobs a nested session's model has seen finish, from its tools' JSON output.

/** Job handles a tool's output reports with a finished status (agent_wait, agent_status, agent_cancel …). */
export function finishedJobsIn(output: string): string[] {
  if (!output.includes('"job"')) return [];
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    return [];
  }
  const found: string[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 4 || !v || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach((x) => visit(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (typeof o.job === "string" && typeof o.status === "string" && o.status !== "running") found.push(o.job);
    for (const x of Object.values(o)) visit(x, depth + 1);
  };
  visit(value, 0);
  return found;
}
