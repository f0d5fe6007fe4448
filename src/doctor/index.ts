// `scv doctor`: one report of what matters, each line ok / warning / problem with its fix. The checks run in
// order; the provider's and the agents' ask the outside world (bounded), everything else reads local state.
import {
  checkAgents,
  checkBinary,
  checkConfig,
  checkDaemon,
  checkKeys,
  checkLeftovers,
  checkMcp,
  checkWebUi,
  checkProvider,
  checkSchedules,
  checkSizes,
  daemonRunning,
  type DoctorContext,
  type DoctorLine,
} from "./checks";

export type { DoctorContext, DoctorLine, Verdict } from "./checks";

export interface DoctorReport {
  lines: DoctorLine[];
  problems: number;
  warnings: number;
}

export async function runDoctor(ctx: DoctorContext): Promise<DoctorReport> {
  const { lines: configLines, config } = checkConfig(ctx);
  const lines = [...checkBinary(), ...configLines];
  if (config) {
    const [provider, agents] = await Promise.all([checkProvider(ctx, config), checkAgents(ctx, config)]);
    lines.push(...provider, ...checkKeys(ctx, config), ...agents, ...checkMcp(ctx, config), ...checkWebUi(config));
    const { checkTelegram } = await import("./telegram");
    lines.push(...(await checkTelegram(ctx, config)));
    const { checkSandbox } = await import("./sandbox");
    lines.push(...(await checkSandbox(ctx, config)));
  }
  lines.push(...(await checkDaemon(ctx, config)), ...checkSchedules(ctx, await daemonRunning(ctx)), ...checkLeftovers(ctx), ...checkSizes(ctx));
  return {
    lines,
    problems: lines.filter((l) => l.verdict === "problem").length,
    warnings: lines.filter((l) => l.verdict === "warning").length,
  };
}

const MARK = { ok: "ok     ", warning: "warning", problem: "problem" } as const;

/** One line per finding, the fix indented under it, then the count. `paint` colours the verdict on a terminal. */
export function formatDoctor(r: DoctorReport, paint: (verdict: DoctorLine["verdict"], text: string) => string = (_, t) => t): string {
  const out: string[] = [];
  for (const l of r.lines) {
    out.push(`${paint(l.verdict, MARK[l.verdict])}  ${l.area}: ${l.text}`);
    if (l.fix) out.push(`         fix: ${l.fix}`);
  }
  out.push(r.problems || r.warnings ? `${r.problems} problem(s), ${r.warnings} warning(s)` : "everything looks fine");
  return `${out.join("\n")}\n`;
}
