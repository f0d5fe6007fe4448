// `scv exec PROMPT`: one turn. The reply goes to stdout, tool progress to stderr; --json prints the protocol
// notifications as JSONL. Exit status: 0 completed, 1 failed, 130 cancelled, 78 configuration error.
import { defineCommand } from "citty";
import { createInterface } from "node:readline";
import { ConfigError, loadConfig, scvHome } from "../config/load";
import { reconcileAtStartup } from "../process/reconcile";
import { recordRunsIn } from "../process/index";
import { becomeSubreaper } from "../process/subreaper";
import { createInProcessClient } from "./exec-client";

const EXIT = { completed: 0, failed: 1, cancelled: 130, config: 78 } as const;

async function readPrompt(arg: string): Promise<string> {
  if (arg !== "-") return arg;
  return (await new Response(Bun.stdin.stream()).text()).trim();
}

function askYesNo(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) => {
    rl.question(`${question} [y/N] `, (answer) => {
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
  });
}

export default defineCommand({
  meta: { name: "exec", description: "Run one turn on PROMPT (or - to read it from stdin) and print the reply" },
  args: {
    prompt: { type: "positional", description: "the prompt, or - for stdin", required: true },
    cwd: { type: "string", description: "workspace directory (default: current directory)" },
    json: { type: "boolean", description: "print protocol events as JSONL on stdout" },
    yes: { type: "boolean", description: "approve every tool call without asking (auto_approve)" },
    provider: { type: "string", description: "provider profile to use (overrides provider.active)" },
    model: { type: "string", description: "model to use for this run" },
  },
  async run({ args }) {
    const env = { ...process.env };
    if (args.provider) env.SCV_PROVIDER = args.provider;
    if (args.model) env.SCV_MODEL = args.model;
    const cwd = args.cwd ?? process.cwd();
    try {
      loadConfig({ cwd, env });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      process.stderr.write(`scv exec: configuration error, not starting:\n${e.message}\n`);
      process.exit(EXIT.config);
    }
    // Escapees of the commands this run starts (setsid, cleared environment) reparent to us, so they are found.
    becomeSubreaper();
    recordRunsIn(scvHome(env)); // recorded before each run starts, so a later SCV stops what a killed one left
    void reconcileAtStartup(scvHome(env));
    const prompt = await readPrompt(args.prompt);
    if (!prompt) {
      process.stderr.write("scv exec: the prompt is empty; pass it as an argument or on stdin with `-`\n");
      process.exit(2);
    }
    // Questions go to stderr, so --json output stays clean; a prompt read from stdin has used it up.
    const interactive = !!process.stdin.isTTY && args.prompt !== "-";
    let sessionId = "";
    let mainTurn = "";
    let streamed = "";
    let finish!: (status: keyof typeof EXIT) => void;
    const finished = new Promise<keyof typeof EXIT>((r) => (finish = r));
    // Background jobs this run started: exec stays open until each has been reported (or cancelled).
    const pendingJobs = new Set<string>();
    let mainStatus: keyof typeof EXIT | undefined;
    let interrupted = false;
    const maybeFinish = () => {
      if (!mainStatus) return;
      if (pendingJobs.size === 0) finish(mainStatus);
      // A job started while Ctrl-C was being handled: nothing waits for its report either.
      else if (interrupted) finish("cancelled");
    };

    const client = createInProcessClient({
      env,
      baseDepth: Number(env.SCV_DELEGATION_DEPTH ?? 0) || 0,
      onNotification(method, p) {
        if (args.json) process.stdout.write(`${JSON.stringify({ method, params: p })}\n`);
        switch (method) {
          case "assistant.delta":
            if (p.turn_id === mainTurn && !args.json) {
              streamed += p.text;
              process.stdout.write(p.text);
            }
            break;
          case "tool.started":
            if (p.turn_id === mainTurn && !args.json) {
              // Text before a tool call is its own segment; keep stdout lines whole around tool progress.
              if (streamed && !streamed.endsWith("\n")) process.stdout.write("\n");
              streamed = "";
              process.stderr.write(`· ${p.label}\n`);
            }
            break;
          case "tool.progress":
            if (!args.json) process.stderr.write(`  ${p.line}\n`);
            break;
          case "tool.completed":
            if (!args.json) process.stderr.write(`  ${p.ok ? "done" : "failed"}: ${p.tool}\n`);
            for (const job of Array.isArray(p.jobs) ? p.jobs : []) pendingJobs.add(String(job));
            for (const job of Array.isArray(p.jobs_settled) ? p.jobs_settled : []) pendingJobs.delete(String(job));
            if (Array.isArray(p.jobs) && p.jobs.length && !args.json) {
              process.stderr.write(`  started ${p.jobs.join(", ")}; waiting for the report before exiting (Ctrl-C cancels)\n`);
            }
            break;
          case "approval.requested":
            void decide(p);
            break;
          case "turn.ended":
            if (p.origin?.kind === "background") {
              for (const job of p.origin.jobs ?? []) pendingJobs.delete(String(job));
              if (!args.json) {
                process.stderr.write(`\n[background report: ${(p.origin.jobs ?? []).join(", ")}]\n`);
                process.stdout.write(p.reply.endsWith("\n") || !p.reply ? p.reply : `${p.reply}\n`);
              }
              maybeFinish();
              break;
            }
            if (p.turn_id !== mainTurn) break;
            if (!args.json) {
              const rest = p.reply.startsWith(streamed) ? p.reply.slice(streamed.length) : `\n${p.reply}`;
              process.stdout.write(rest);
              if ((streamed + rest).length && !(streamed + rest).endsWith("\n")) process.stdout.write("\n");
              if (p.error) process.stderr.write(`scv exec: turn ${p.status}: ${p.error.message}\n`);
            }
            mainStatus = p.status;
            maybeFinish();
            break;
        }
      },
    });

    function howToAllow(): string {
      const fix = "rerun with --yes to allow tool calls";
      if (process.stdin.isTTY) return `nobody can be asked when the prompt comes from stdin (-); ${fix}, or pass the prompt as an argument to be asked`;
      return `nobody can approve here (stdin is not a terminal); ${fix}, or run in a terminal to be asked`;
    }

    async function decide(p: { approval_id: string; tool: string; summary: string; risk: string }) {
      let approved = false;
      if (interactive) approved = await askYesNo(`\nAllow ${p.risk} action?\n${p.summary}\n`);
      else process.stderr.write(`scv exec: denied ${p.tool} (${p.risk}): ${p.summary}\n  ${howToAllow()}\n`);
      await client.request("approval.resolve", { session_id: sessionId, approval_id: p.approval_id, approved }).catch(() => {});
    }

    let interrupts = 0;
    process.on("SIGINT", () => {
      if (++interrupts > 1) process.exit(EXIT.cancelled);
      process.stderr.write("\nscv exec: cancelling (Ctrl-C again to quit at once)\n");
      interrupt();
    });
    process.on("SIGTERM", interrupt);
    // With jobs started, finish at once: closing the session (below) cancels the turn and every job, and no report
    // turn starts for them. Without jobs, cancel the turn and let its end finish the run.
    function interrupt() {
      interrupted = true;
      if (pendingJobs.size) finish("cancelled");
      else if (sessionId) void client.request("turn.cancel", { session_id: sessionId }).catch(() => {});
    }

    try {
      await client.request("initialize", { protocol_version: 3, client: { name: "scv-exec" } });
      const started = await client.request("session.start", { cwd, auto_approve: !!args.yes, ...(args.model ? { model: args.model } : {}) });
      sessionId = started.session_id;
      mainTurn = (await client.request("turn.start", { session_id: sessionId, prompt })).turn_id;
    } catch (e) {
      process.stderr.write(`scv exec: ${(e as Error).message}\n`);
      await client.closeAll();
      process.exit((e as { code?: number }).code === -32004 ? EXIT.config : 1);
    }
    const status = await finished;
    await client.request("session.close", { session_id: sessionId }).catch(() => {});
    process.exit(EXIT[status]);
  },
});
