// `scv status`: the daemon (pid, uptime, version), delegations running and idle, orphans stopped; from the
// daemon when it runs, else from the state directory.
import { terminalSafe } from "../text/terminal-safe";
import { defineCommand } from "./command";
import { scvHome } from "../config/load";

export default defineCommand({
  meta: { name: "status", description: "Daemon, delegations running and idle, orphans stopped" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const { collectStatus, formatStatus } = await import("../daemon/status");
    const report = await collectStatus(scvHome());
    process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : `${terminalSafe(formatStatus(report))}\n`);
  },
});
