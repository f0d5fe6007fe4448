// `scv exec PROMPT`: one turn. The reply goes to stdout, tool calls and approvals to stderr (exec-render.ts);
// --json prints the protocol notifications as JSONL. Exit status: see exit-codes.ts.
// The run's modules load inside run(), so `--help` and usage errors answer without loading the server.
import { terminalSafe } from "../text/terminal-safe";
import { statSync, writeFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { defineCommand, lazyStdio } from "./command";
import { EXIT_CODES } from "./exit-codes";
import { REASONING_EFFORTS } from "../config/reasoning";
import type { SessionStore } from "../sessions/index";
import { storedWorkspace } from "../sessions/workspace";

/** How long after start the start-up reconcile begins: after the first model request on an idle machine. */
const RECONCILE_AFTER_MS = 100;
const EXIT = { completed: 0, failed: 1, cancelled: 130, config: 78 } as const;
/** A completed turn in which calls were denied because nobody could approve them: a script must see it. */
const EXIT_UNAPPROVED = 4;

async function readPrompt(arg: string): Promise<string> {
  if (arg !== "-") return arg;
  return (await new Response(Bun.stdin.stream()).text()).trim();
}

/** Every value of an option given more than once (`-i a.png --image b.png --image=c.png`), before any `--`. */
function repeatedOption(words: string[], long: string, short: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--") break;
    if (w === long || w === short) values.push(words[++i]!);
    else if (w.startsWith(`${long}=`)) values.push(w.slice(long.length + 1));
  }
  return values;
}

/** The newest session of the workspace at `cwd`, for --continue; exits with advice when there is none. */
function newestSessionOf(sessions: SessionStore, cwd: string): string {
  const workspace = storedWorkspace(cwd); // session.start reports a missing directory
  const newest = sessions.list({ workspace, limit: 1 })[0];
  if (newest) return newest.id;
  process.stderr.write(`scv exec: no earlier session in ${workspace} to continue; run scv exec PROMPT to start one (scv sessions list --all shows every workspace's)\n`);
  process.exit(1);
}

/** What a resumed session brought back that the person should know: lost jobs and unreadable records. */
function reportResumed(r: { session_id: string; turns: { status: string }[]; jobs: { job: string; agent: string; status: string }[]; warnings: string[] }) {
  process.stderr.write(`scv exec: resuming ${r.session_id} (${r.turns.length} earlier turn${r.turns.length === 1 ? "" : "s"})\n`);
  for (const w of r.warnings) process.stderr.write(`scv exec: warning: ${terminalSafe(w)}\n`);
  for (const j of r.jobs.filter((j) => j.status === "interrupted")) {
    process.stderr.write(`scv exec: background ${j.job} (${j.agent}) was interrupted: the process running the session stopped before it finished\n`);
  }
}

/** --until and its budget as turn.start's `goal`; a bad number exits 2 saying which. */
function goalOption(args: { until?: string; "max-attempts"?: string; "max-seconds"?: string; "max-tokens"?: string; "check-timeout"?: string }) {
  const numbers = { max_attempts: args["max-attempts"], max_seconds: args["max-seconds"], max_tokens: args["max-tokens"], check_timeout_seconds: args["check-timeout"] };
  const flag = (key: string) => (key === "check_timeout_seconds" ? "--check-timeout" : `--${key.replace("_", "-")}`);
  if (args.until === undefined) {
    const given = Object.entries(numbers).find(([, v]) => v !== undefined);
    if (given) usage(`${flag(given[0])} only applies with --until CHECK`);
    return undefined;
  }
  if (!args.until.trim()) usage("--until needs the check command, e.g. --until \"bun test\"");
  const goal: { check: string; max_attempts?: number; max_seconds?: number; max_tokens?: number; check_timeout_seconds?: number } = { check: args.until };
  for (const [key, text] of Object.entries(numbers)) {
    if (text === undefined) continue;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < 1) usage(`${flag(key)} ${text}: give a whole number of at least 1 (a budget of zero would stop before the first attempt)`);
    goal[key as keyof typeof numbers] = n;
  }
  return goal;
}

function usage(message: string): never {
  process.stderr.write(`scv exec: ${message}\n`);
  process.exit(2);
}

export default defineCommand({
  meta: { name: "exec", description: "Run one turn on PROMPT (or - to read it from stdin) and print the reply" },
  notes:
    "Approvals: y runs the call once, n denies it and asks why (the model is told; Enter alone: no reason),\n" +
    "Enter or Ctrl-D denies it at once and the turn goes on, a runs it and every identical call (same tool, same\n" +
    "arguments) for the rest of this run, t runs every call of that tool for the rest of this run (not offered for\n" +
    "commands), Ctrl-C denies it and cancels the turn. --accept-edits runs edit and write inside the workspace\n" +
    "unasked (secret-like paths still ask; commands, network and MCP calls ask as usual).\n" +
    "For a command the guard could read, p runs it and keeps the rule \"always allow commands starting with …\" for\n" +
    "this project, u for every project (scv rules list shows them). Read-only commands (ls, git status) run\n" +
    "unasked; destructive ones (rm -rf ~) are refused, even with --yes.\n\n" +
    EXIT_CODES,
  args: {
    prompt: { type: "positional", description: "the prompt (quote it), or - to read it from stdin" },
    cwd: { type: "string", alias: "C", valueHint: "DIR", description: "workspace directory (default: current directory)" },
    json: { type: "boolean", description: "print protocol events as JSONL on stdout" },
    yes: { type: "boolean", alias: "y", description: "approve every tool call without asking (auto_approve)" },
    "accept-edits": { type: "boolean", description: "run edit and write inside the workspace unasked (secret-like paths, network and MCP still ask; commands run unasked inside the sandbox, and one that needs more asks)" },
    provider: { type: "string", alias: "p", valueHint: "NAME", description: "provider profile to use (overrides provider.active)" },
    model: { type: "string", alias: "m", valueHint: "MODEL", description: "model to use for this run" },
    "output-last-message": { type: "string", alias: "o", valueHint: "FILE", description: "also write the final reply to FILE" },
    resume: { type: "string", valueHint: "ID", description: "continue the stored session ID (see scv sessions list) with its full history" },
    continue: { type: "boolean", description: "continue the newest session of this workspace" },
    effort: { type: "string", valueHint: "EFFORT", description: `reasoning effort for this run: ${REASONING_EFFORTS.join(", ")}` },
    image: { type: "string", alias: "i", valueHint: "FILE", description: "attach an image (PNG, JPEG, GIF, WebP) to the prompt; repeatable" },
    "over-budget": { type: "boolean", description: "run even though a spending limit ([limits] in config.toml) is reached, this once" },
    until: { type: "string", valueHint: "CHECK", description: "keep working until the shell command CHECK passes (exit 0): it runs after each turn, and its failure starts the next (docs/guide.md, Goals)" },
    "max-attempts": { type: "string", valueHint: "N", description: "with --until: turns at most (default 10)" },
    "max-seconds": { type: "string", valueHint: "N", description: "with --until: wall time at most (default 1800)" },
    "max-tokens": { type: "string", valueHint: "N", description: "with --until: model tokens at most (default 2000000)" },
    "check-timeout": { type: "string", valueHint: "N", description: "with --until: seconds one run of the check may take (default 600)" },
  },
  async run({ args, rawArgs }) {
    const [{ ConfigError, loadConfig, scvHome }, { reconcileAtStartup }, { requestSubreaper }, { askApproval, askApprovalWithReason }, { createInProcessClient }, { createExecRenderer }, { openSessionStore }] =
      await Promise.all([
        import("../config/load"),
        import("../agents/reconcile"),
        import("../process/subreaper"),
        import("./approval-prompt"),
        import("../server/in-process-client"),
        import("./exec-render"),
        import("../sessions/index"),
      ]);
    const env = { ...process.env };
    if (args.provider) env.SCV_PROVIDER = args.provider;
    if (args.model) env.SCV_MODEL = args.model;
    const cwd = args.cwd ?? process.cwd();
    if (args.cwd !== undefined && !statSync(args.cwd, { throwIfNoEntry: false })?.isDirectory()) {
      process.stderr.write(`scv exec: -C ${args.cwd}: not a directory; give the workspace directory to run in\n`);
      process.exit(2);
    }
    const effort = args.effort as (typeof REASONING_EFFORTS)[number] | undefined;
    if (effort !== undefined && !REASONING_EFFORTS.includes(effort)) {
      process.stderr.write(`scv exec: --effort "${effort}" is not a reasoning effort; use one of: ${REASONING_EFFORTS.join(", ")}\n`);
      process.exit(2);
    }
    let keepDays: number;
    let notify: { after_seconds: number; long_turn_seconds: number } | undefined;
    try {
      const loaded = loadConfig({ cwd, env }).config;
      keepDays = loaded.sessions.keep_days;
      notify = loaded.notify;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      process.stderr.write(`scv exec: configuration error, not starting:\n${e.message}\n`);
      process.exit(EXIT.config);
    }
    if (args.continue && args.resume) {
      process.stderr.write("scv exec: give either --resume ID or --continue, not both\n");
      process.exit(2);
    }
    const sessions = openSessionStore({ home: scvHome(env) });
    sessions.prune(keepDays);
    const resumeId = args.continue ? newestSessionOf(sessions, cwd) : args.resume;
    // Escapees of the commands this run starts (setsid, cleared environment) reparent to us, so they are found.
    requestSubreaper();
    const { recordRunsIn, hurryAllRuns } = await import("../process/index");
    recordRunsIn(scvHome(env)); // recorded before each run starts, so a later SCV stops what a killed one left
    // What a killed SCV left is stopped off the way to the first model request (its scans of the run records and
    // /proc took a few milliseconds of it); exec waits for it before it exits, so a quick turn still runs it.
    const home = scvHome(env);
    const reconciled = new Promise<void>((resolve) => setTimeout(() => void reconcileAtStartup(home).finally(resolve), RECONCILE_AFTER_MS));
    const goal = goalOption(args);
    let prompt = await readPrompt(args.prompt);
    if (!prompt) {
      process.stderr.write("scv exec: the prompt is empty; pass it as an argument or on stdin with `-`\n");
      process.exit(2);
    }
    // `scv exec "/name args"`: the person's command file (src/command-files), as in the TUI.
    const commandFile = prompt.startsWith("/") ? await (await import("./exec-command")).commandPrompt(prompt, { cwd, env, explicitModel: !!(args.model || args.provider) }) : undefined;
    if (commandFile) prompt = commandFile.prompt;
    // Questions go to stderr, so --json output stays clean; a prompt read from stdin has used it up.
    const interactive = !!process.stdin.isTTY && args.prompt !== "-";
    let sessionId = "";
    let mainTurn = "";
    let lastReply = "";
    let finish!: (status: keyof typeof EXIT) => void;
    const finished = new Promise<keyof typeof EXIT>((r) => (finish = r));
    // Background jobs this run started: exec stays open until each has been reported (or cancelled).
    const pendingJobs = new Set<string>();
    let mainStatus: keyof typeof EXIT | undefined;
    let interrupted = false;
    /** With --until: the goal runs until goal.ended, which decides how exec ends. */
    let goalRunning = !!goal;
    let goalEnded: keyof typeof EXIT | undefined;
    const maybeFinish = () => {
      if (!mainStatus) return;
      if (pendingJobs.size === 0) finish(mainStatus);
      // A job started while Ctrl-C was being handled: nothing waits for its report either.
      else if (interrupted) finish("cancelled");
    };
    const endedEarly = new Map<string, { reply: string; status: keyof typeof EXIT }>();
    const mainEnded = (p: { reply: string; status: keyof typeof EXIT }) => {
      lastReply = p.reply;
      mainStatus = goalEnded ?? p.status;
      maybeFinish();
    };
    const stdout = lazyStdio(1);
    const render = createExecRenderer({ stdout, stderr: lazyStdio(2), json: !!args.json });

    const client = createInProcessClient({
      env,
      sessions,
      baseDepth: Number(env.SCV_DELEGATION_DEPTH ?? 0) || 0,
      indexLater: true,
      onNotification(...notification) {
        const [method, p] = notification;
        // A goal's later attempts are turns SCV starts: each is the one shown, in turn.
        if (method === "turn.started" && p.origin?.kind === "goal" && goalRunning) mainTurn = p.turn_id;
        if (args.json) stdout.write(`${JSON.stringify({ method, params: p })}\n`);
        render.notify(mainTurn, ...notification);
        switch (method) {
          case "tool.completed":
            for (const job of Array.isArray(p.jobs) ? p.jobs : []) pendingJobs.add(String(job));
            for (const job of Array.isArray(p.jobs_settled) ? p.jobs_settled : []) pendingJobs.delete(String(job));
            break;
          case "approval.requested":
            void decide(p);
            break;
          case "clarify.requested":
            void answerQuestion(p);
            break;
          case "clarify.answered":
            // Settled without this terminal (timed out, the turn cancelled): stop asking.
            questionsOpen.get(p.clarify_id)?.abort();
            break;
          case "goal.ended":
            goalRunning = false;
            goalEnded = p.status === "passed" ? "completed" : p.status === "cancelled" ? "cancelled" : "failed";
            if (mainTurn) mainEnded({ reply: lastReply, status: goalEnded });
            break;
          case "turn.ended":
            if (goalRunning && (p.turn_id === mainTurn || !mainTurn)) {
              lastReply = p.reply; // the goal goes on (or its end follows at once)
              break;
            }
            if (p.origin?.kind === "background") {
              for (const job of p.origin.jobs ?? []) pendingJobs.delete(String(job));
              if (p.reply) lastReply = p.reply;
              maybeFinish();
              break;
            }
            // A turn that fails at once ends before turn.start is answered: kept until its ID is known.
            if (!mainTurn) endedEarly.set(p.turn_id, p);
            else if (p.turn_id === mainTurn) mainEnded(p);
            break;
        }
      },
    });

    function howToAllow(): string {
      const fix = "rerun with --yes to allow tool calls";
      if (process.stdin.isTTY) return `nobody can be asked when the prompt comes from stdin (-); ${fix}, or pass the prompt as an argument to be asked`;
      return `nobody can approve here (stdin is not a terminal); ${fix}, or run in a terminal to be asked`;
    }

    // Calls denied because nobody could be asked: counted, so the run's end says so and exits non-zero.
    let deniedUnattended = 0;
    // Calls the person answered `a` (always) for, by fingerprint: identical calls run unasked for this run.
    const alwaysAllowed = new Set<string>();
    // Questions are asked one at a time; Ctrl-C delivered as a signal ends the one open.
    let questions = Promise.resolve();
    let questionAbort = new AbortController();
    // A card nobody answers here is offered to the owner where they are, through the daemon (issue 54).
    type RemoteCard = { answer?: import("../daemon/away-link").RemoteAnswer; abort: AbortController };
    let remote: RemoteCard | undefined;
    const away = interactive
      ? new (await import("../daemon/away-link")).AwayLink({ scvHome: scvHome(env), afterSeconds: notify?.after_seconds ?? 60, longTurnSeconds: notify?.long_turn_seconds ?? 120, source: "scv exec", answered: (_id, a) => remote && ((remote.answer = a), remote.abort.abort()) })
      : undefined;

    function decide(p: { approval_id: string; call_id?: string; tool: string; summary: string; risk: string; fingerprint?: string; guard?: { reason: string; sandbox?: string; person_only?: boolean }; rule_prefix?: string[]; rememberable?: boolean; choices?: string[] }) {
      const answer = async (approved: boolean, remember?: "workspace" | "user" | "session", reason?: string, chosen?: string[]) => {
        const r = await client.request("approval.resolve", { session_id: sessionId, approval_id: p.approval_id, approved, ...(remember ? { remember } : {}), ...(reason ? { reason } : {}), ...(chosen ? { chosen } : {}) }).catch(() => undefined);
        if (r?.rule) render.note(`  kept the rule: always allow commands starting with \`${r.rule}\` ${remember === "workspace" ? "in this project" : "in every project"} (scv rules list)`);
        if (r?.rule_error) render.note(remember === "session" ? `  not allowed for the run: ${r.rule_error}` : `  the rule was not kept: ${r.rule_error}`);
      };
      // The command file's allowed-tools run unasked, as in Claude Code; the call's own line follows.
      if (commandFile?.allows(p.tool, p.summary)) return answer(true);
      if (p.fingerprint && alwaysAllowed.has(p.fingerprint)) {
        // Said on the call's own line when it completes (one line per call).
        if (p.call_id) render.answeredBy(p.call_id, "identical to one allowed with a");
        else render.note("  approved: identical to a call allowed with `a`");
        return answer(true);
      }
      if (!interactive) {
        deniedUnattended++;
        render.note(`  not asked, so denied: ${howToAllow()}`);
        return answer(false);
      }
      questions = questions.then(async () => {
        if (interrupted) return void (await answer(false));
        if (p.fingerprint && alwaysAllowed.has(p.fingerprint)) return void (await answer(true));
        const perTool = !p.guard && !p.rule_prefix && !p.rememberable;
        const some = !!p.choices?.length;
        const here: RemoteCard = { abort: new AbortController() };
        remote = here;
        away?.waitingFor(p as unknown as { approval_id: string });
        const asked = await askApprovalWithReason(render.approvalCard({ ...p, perTool }), { input: process.stdin, output: process.stderr }, AbortSignal.any([questionAbort.signal, here.abort.signal]), { rules: !!p.rule_prefix, perTool, reasons: true, some });
        remote = undefined;
        if (here.answer) {
          render.note(`  answered from ${here.answer.by}`);
          if (here.answer.approved) render.approved();
          return void (await answer(here.answer.approved, here.answer.session ? "session" : undefined, here.answer.reason));
        }
        away?.answeredHere("scv exec");
        const reply = asked.answer;
        if (reply === "some") {
          // Each part alone (the servers of one connect request); "always" on any keeps the ones approved.
          const chosen: string[] = [];
          let keep = false;
          for (const choice of p.choices!) {
            const one = await askApproval(`  ${terminalSafe(choice)}? [y/N/a] `, { input: process.stdin, output: process.stderr }, questionAbort.signal);
            if (one === "interrupt") return void (interrupt(), await answer(false));
            if (one === "yes" || one === "always") chosen.push(choice);
            keep ||= one === "always";
          }
          if (chosen.length) render.approved();
          return void (await answer(chosen.length > 0, keep ? "workspace" : undefined, undefined, chosen));
        }
        // A request to run outside the sandbox asks every time.
        if (reply === "always" && p.fingerprint && !p.guard?.person_only) alwaysAllowed.add(p.fingerprint);
        if (reply === "tool") {
          render.approved();
          return void (await answer(true, "session"));
        }
        if (asked.reason) return void (await answer(false, undefined, asked.reason));
        // Ctrl-C: cancel first, so the turn ends instead of taking the denial to the model.
        if (reply === "interrupt") interrupt();
        const remember = reply === "workspace-rule" ? "workspace" : reply === "user-rule" ? "user" : undefined;
        const approved = reply === "yes" || reply === "always" || !!remember;
        if (approved) render.approved();
        // "always" on a request the server keeps (an MCP server's connection) keeps it for this workspace.
        await answer(approved, remember ?? (reply === "always" && p.rememberable ? "workspace" : undefined));
      });
      return questions;
    }

    // The model's questions take their turn with the approvals (one thing asked at a time).
    const questionsOpen = new Map<string, AbortController>();
    function answerQuestion(p: { clarify_id: string; question: string; choices?: string[] }) {
      const settled = new AbortController();
      questionsOpen.set(p.clarify_id, settled);
      questions = questions.then(async () => {
        if (interrupted || settled.signal.aborted) return;
        const { askQuestion } = await import("./exec-clarify");
        const answer = await askQuestion(p, { input: process.stdin, output: process.stderr }, AbortSignal.any([questionAbort.signal, settled.signal]));
        questionsOpen.delete(p.clarify_id);
        if (settled.signal.aborted) return render.note("  (the question was settled without an answer from here)");
        await client.request("clarify.answer", { session_id: sessionId, clarify_id: p.clarify_id, ...(answer ? { answer } : {}) }).catch(() => undefined);
      });
      return questions;
    }

    let interrupts = 0;
    process.on("SIGINT", () => {
      if (++interrupts > 1) process.exit(EXIT.cancelled);
      render.note("\nscv exec: cancelling (Ctrl-C again to quit at once)");
      interrupt();
    });
    // SIGTERM ends exec within 2 s whatever it is waiting for: cancel, then finish, then leave.
    process.on("SIGTERM", () => {
      interrupt();
      setTimeout(() => {
        hurryAllRuns(); // a command that ignores SIGTERM gets KILL now rather than after its grace
        finish("cancelled");
      }, 1000);
      setTimeout(() => process.exit(EXIT.cancelled), 1800);
    });
    // With jobs started, finish at once: closing the session (below) cancels the turn and every job, and no report
    // turn starts for them. Without jobs, cancel the turn and let its end finish the run.
    function interrupt() {
      interrupted = true;
      questionAbort.abort();
      questionAbort = new AbortController();
      if (pendingJobs.size) finish("cancelled");
      else if (sessionId) void client.request("turn.cancel", { session_id: sessionId }).catch(() => {});
    }

    try {
      await client.request("initialize", { protocol_version: 3, client: { name: "scv-exec" } });
      const common = { auto_approve: !!args.yes, questions: interactive, ...(args["accept-edits"] ? { approval_mode: "accept-edits" as const } : {}), ...(args.model ? { model: args.model } : {}), ...(args["over-budget"] ? { over_budget: true } : {}) };
      const effortParam = effort ? { reasoning_effort: effort } : {};
      // A resumed session keeps its profile unless --provider names another: then it moves there (docs/guide.md).
      const moveTo = args.provider ? { provider: args.provider } : {};
      const started = resumeId ? await client.request("session.resume", { session_id: resumeId, ...common, ...moveTo }) : await client.request("session.start", { cwd, ...common, ...effortParam });
      sessionId = started.session_id;
      if (resumeId) reportResumed(started);
      for (const n of started.notices ?? []) process.stderr.write(`scv exec: note: ${n}\n`);
      const images = repeatedOption(rawArgs, "--image", "-i").map((f) => resolvePath(cwd, f));
      if (!goal && started.goal) {
        // A resumed session's goal goes on with this turn: exec waits for it as for its own.
        goalRunning = true;
        render.note(`scv exec: the goal goes on: until \`${terminalSafe(started.goal.check)}\` passes (attempt ${started.goal.attempts + 1} of ${started.goal.budget.max_attempts})`);
      }
      mainTurn = (await client.request("turn.start", { session_id: sessionId, prompt, ...(images.length ? { images } : {}), ...(goal ? { goal } : {}) })).turn_id;
      const early = endedEarly.get(mainTurn);
      if (early) mainEnded(early);
      if (goalEnded && !mainStatus) mainEnded({ reply: lastReply, status: goalEnded });
    } catch (e) {
      process.stderr.write(`scv exec: ${(e as Error).message}\n`);
      await client.closeAll();
      process.exit((e as { code?: number }).code === -32004 ? EXIT.config : 1);
    }
    const status = await finished;
    render.stop();
    await client.request("session.close", { session_id: sessionId }).catch(() => {});
    await reconciled;
    const outFile = args["output-last-message"];
    if (outFile) {
      try {
        writeFileSync(resolvePath(outFile), lastReply.endsWith("\n") || lastReply === "" ? lastReply : `${lastReply}\n`);
      } catch (e) {
        process.stderr.write(`scv exec: could not write the reply to ${outFile}: ${(e as Error).message}\n`);
        process.exit(EXIT.failed);
      }
    }
    if (deniedUnattended > 0 && status === "completed") {
      const calls = deniedUnattended === 1 ? "1 tool call was" : `${deniedUnattended} tool calls were`;
      process.stderr.write(`scv exec: ${calls} denied because nobody could approve ${deniedUnattended === 1 ? "it" : "them"}; ${howToAllow()}\n`);
      process.exit(EXIT_UNAPPROVED);
    }
    process.exit(EXIT[status]);
  },
});
