// `scv sandbox log [--since PERIOD] [--json]`: what the egress proxy of sandboxed commands allowed and refused
// (host, command, session, time), from its log ($SCV_HOME/state/sandbox-network.jsonl and the previous file, .1; src/sandbox/egress-log.ts).
import { defineCommand, USAGE_EXIT } from "./command";
import { scvHome } from "../config/load";
import { parseSince } from "../ledger/usage";

const log = defineCommand({
  meta: { name: "log", description: "What the sandbox's network proxy allowed and refused (host, command, session, time)" },
  args: {
    since: { type: "string", valueHint: "PERIOD", description: "from when: 24h, 7d, 2w, today, month, or a date YYYY-MM-DD (default 24h)" },
    json: { type: "boolean", description: "print one JSON object a line" },
  },
  async run({ args }) {
    const since = parseSince(args.since ?? "24h");
    if (since === undefined) {
      process.stderr.write(`scv sandbox log: --since ${JSON.stringify(args.since)} is not a period: use 24h, 7d, 2w, today, month, or a date such as 2026-12-01\n`);
      process.exitCode = USAGE_EXIT;
      return;
    }
    const { readEgressLog } = await import("../sandbox/egress-log");
    const entries = readEgressLog(scvHome(), since);
    if (args.json) {
      for (const e of entries) process.stdout.write(`${JSON.stringify(e)}\n`);
      return;
    }
    if (!entries.length) {
      process.stdout.write(`nothing allowed or refused since ${new Date(since).toLocaleString()} (a [sandbox.network] table sends sandboxed commands through the proxy)\n`);
      return;
    }
    for (const e of entries) {
      const what = `${e.time}  ${e.action.padEnd(7)}  ${e.host}:${e.port} (${e.via})`;
      const who = [e.session ? `session ${e.session}` : "", e.command ? `command: ${e.command.replace(/\s+/g, " ").slice(0, 80)}` : ""].filter(Boolean).join("; ");
      process.stdout.write(`${what}${e.reason ? `  ${e.reason}` : ""}${who ? `\n    ${who}` : ""}\n`);
    }
  },
});

export default defineCommand({
  meta: { name: "sandbox", description: "The sandbox under bash: its network proxy's log" },
  subCommands: { log },
});
