// `scv doctor`: one place to look when something is wrong. Exit 1 when any line is a problem, else 0.
import { statSync } from "node:fs";
import { defineCommand } from "./command";

export default defineCommand({
  meta: { name: "doctor", description: "Check the binary, config, provider, keys, agents, daemon and channels, and say what to fix" },
  notes: "Makes at most one request to the active provider (GET /models, bounded) and never prints a secret.\nExit 1 when something is a problem, else 0.",
  args: {
    cwd: { type: "string", alias: "C", valueHint: "DIR", description: "directory whose configuration layers to check (default: current directory)" },
    json: { type: "boolean", description: "print the report as JSON" },
    timeout: { type: "string", valueHint: "SECONDS", description: "bound on the provider request and each agent's status (default 5)" },
  },
  async run({ args }) {
    const cwd = args.cwd ?? process.cwd();
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
      process.stderr.write(`scv doctor: -C ${cwd}: not a directory\n`);
      process.exit(2);
    }
    const seconds = args.timeout === undefined ? 5 : Number(args.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 120) {
      process.stderr.write(`scv doctor: --timeout ${JSON.stringify(args.timeout)}: give seconds between 1 and 120\n`);
      process.exit(2);
    }
    const [{ runDoctor, formatDoctor }, { styleFor }] = await Promise.all([import("../doctor/index"), import("../terminal/style")]);
    // A sign of life: the provider and agent checks can take a few seconds.
    const waiting = process.stderr.isTTY && !args.json ? setTimeout(() => process.stderr.write("checking the provider and the agents…\n"), 1000) : undefined;
    const report = await runDoctor({ cwd, env: process.env, timeoutMs: seconds * 1000 });
    clearTimeout(waiting);
    if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      const style = styleFor(process.stdout);
      const paint = { ok: style.green, warning: style.yellow, problem: style.red };
      process.stdout.write(formatDoctor(report, (v, t) => paint[v](t)));
    }
    process.exit(report.problems ? 1 : 0);
  },
});
