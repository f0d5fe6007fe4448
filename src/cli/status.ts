// `scv status`: the daemon (pid, uptime, version), delegations running and idle, orphans stopped; from the
// daemon when it runs, else from the state directory.
import { terminalSafe } from "../text/terminal-safe";
import { defineCommand } from "./command";
import { scvHome } from "../config/load";

export default defineCommand({
  meta: { name: "status", description: "Daemon, delegations running and idle, orphans stopped, the next schedule fire" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const { collectStatus, formatStatus } = await import("../daemon/status");
    const { scheduleSummary } = await import("../schedules/summary");
    const report = await collectStatus(scvHome());
    const schedules = scheduleSummary(scvHome(), process.env);
    if (!report.daemon.running && schedules.active) schedules.line += "; the daemon is not running, so none fires: start it with scv daemon start";
    const sandbox = await sandboxLine();
    process.stdout.write(args.json ? `${JSON.stringify({ ...report, schedules, sandbox }, null, 2)}\n` : `${terminalSafe(formatStatus(report))}\n${terminalSafe(schedules.line)}\n${terminalSafe(sandbox)}\n`);
  },
});

/** How bash commands run for this directory (src/sandbox). */
async function sandboxLine(): Promise<string> {
  try {
    const { loadConfig } = await import("../config/load");
    const { sandboxSettingsIn, sandboxStatusLine } = await import("../sandbox");
    const { config } = loadConfig({ cwd: process.cwd(), env: process.env });
    return sandboxStatusLine(sandboxSettingsIn(config.sandbox, { workspace: process.cwd(), scvHome: scvHome(), env: process.env }));
  } catch (e) {
    return `sandbox: unknown (${(e as Error).message.split("\n")[0]})`;
  }
}
