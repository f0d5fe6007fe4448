// `scv agents ps|kill|merge|discard|worktrees|gc|login|logout|import|status`: delegations of this SCV_HOME seen from any SCV process, transcript
// cleanup, and signing the delegated agents in and out of their private homes.
import { terminalSafe } from "../text/terminal-safe";
import { defineCommand } from "./command";
import { scvHome } from "../config/load";

function fail(command: string, message: string, code = 1): void {
  process.stderr.write(`scv agents ${command}: ${message}\n`);
  process.exitCode = code;
}

const ps = defineCommand({
  meta: { name: "ps", description: "List this instance's running delegations (from any SCV process)" },
  args: {
    all: { type: "boolean", description: "also list orphans awaiting cleanup" },
    json: { type: "boolean", description: "print JSON" },
  },
  async run({ args }) {
    const { listRecords, delegationState } = await import("../process/delegation-records");
    const now = Date.now() / 1000;
    const rows = listRecords(scvHome())
      .map((r) => ({
        handle: r.handle,
        kind: r.kind ?? "agent",
        agent: r.agent,
        session: r.session,
        conversation: r.conversation ?? null,
        turn: r.turn ?? null,
        state: delegationState(r),
        cwd: r.cwd,
        age_seconds: Math.max(0, Math.floor(now - r.started_unix)),
        pid: r.pid,
        owner_pid: r.owner_pid,
        depth: r.depth,
        ...(r.idle_since_unix !== undefined ? { idle_since_unix: r.idle_since_unix } : {}),
        ...(r.background_jobs ? { background_jobs: r.background_jobs } : {}),
      }))
      .filter((r) => args.all || r.state !== "orphan");
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ delegations: rows }, null, 2)}\n`);
      return;
    }
    if (!rows.length) {
      process.stdout.write(args.all ? "no delegations\n" : "no running delegations (scv agents ps --all also lists orphans)\n");
      return;
    }
    const { formatDuration } = await import("../daemon/status");
    const table = [
      ["HANDLE", "AGENT", "SESSION", "CONVERSATION", "TURN", "STATE", "AGE", "CWD"],
      ...rows.map((r) => [r.handle, r.kind === "mcp" ? `mcp:${r.agent}` : r.kind === "command" ? "command" : r.agent, r.session, r.conversation ?? "-", r.turn === null ? "-" : String(r.turn), r.state, formatDuration(r.age_seconds), r.cwd]),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    const lines = table.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "));
    process.stdout.write(`${terminalSafe(lines.join("\n"))}\n`);
  },
});

const kill = defineCommand({
  meta: { name: "kill", description: "Stop a delegation (its caller sees `cancelled`), or every orphan with --orphans" },
  args: {
    handle: { type: "positional", required: false, description: "the handle shown by `scv agents ps`" },
    orphans: { type: "boolean", description: "stop every orphan (a run whose SCV process is gone)" },
    json: { type: "boolean", description: "print JSON" },
  },
  async run({ args }) {
    const home = scvHome();
    if (!!args.handle === !!args.orphans) {
      fail("kill", "give either a handle (see `scv agents ps`) or --orphans", 2);
      return;
    }
    const { findOrphans, killDelegation, stopOrphans } = await import("../process/reconcile");
    if (args.orphans) {
      const stopped = await stopOrphans(home, findOrphans(home));
      if (args.json) process.stdout.write(`${JSON.stringify({ stopped }, null, 2)}\n`);
      else process.stdout.write(stopped.length ? `stopped ${stopped.length} orphan(s): ${stopped.join(", ")}\n` : "no orphans\n");
      return;
    }
    const outcome = await killDelegation(home, args.handle!);
    if (args.json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    if (!outcome.killed) {
      if (!args.json) fail("kill", outcome.reason);
      else process.exitCode = 1;
      return;
    }
    if (!args.json) {
      const note = outcome.orphan ? " (an orphan; record removed)" : outcome.recordRemoved ? "; its caller sees it cancelled" : "; its SCV process will report it cancelled";
      process.stdout.write(`killed ${outcome.handle}${note}\n`);
    }
  },
});

const gc = defineCommand({
  meta: { name: "gc", description: "Remove old agent transcripts from SCV's private agent homes" },
  args: {
    agent: { type: "positional", required: false, description: "only this agent's transcripts" },
    "dry-run": { type: "boolean", description: "list what would go, per agent, and remove nothing" },
    "older-than": { type: "string", description: "age such as 7d or 12h (default 30d, never under 1h)" },
    json: { type: "boolean", description: "print JSON" },
  },
  async run({ args }) {
    const { agentsGc, formatGcReport, GcUsageError } = await import("../accounts/gc");
    try {
      const report = agentsGc({ scvHome: scvHome(), olderThan: args["older-than"], agent: args.agent, dryRun: !!args["dry-run"] });
      process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatGcReport(report) || "nothing to remove"}\n`);
    } catch (e) {
      if (!(e instanceof GcUsageError)) throw e;
      fail("gc", e.message, 2);
    }
  },
});

/** Runs a sign-in command with the user's config; its exit status becomes ours. */
async function signInAction(command: string, act: (ctx: import("../accounts/login-io").LoginContext) => Promise<number>): Promise<void> {
  const { ConfigError, loadConfig } = await import("../config/load");
  const { LoginError } = await import("../accounts/login-io");
  try {
    const { config } = loadConfig({ env: process.env });
    process.exitCode = await act({ scvHome: scvHome(), config, env: process.env });
  } catch (e) {
    if (e instanceof ConfigError) return fail(command, `configuration error:\n${e.message}`, 78);
    if (e instanceof LoginError) return fail(command, e.message, e.exitCode);
    throw e;
  }
}

// Arguments are read from rawArgs: everything after `--` belongs to the agent's own command.
const agentArg = { type: "positional", required: true, description: "claude, codex, grok, dsh, pi, or scv" } as const;

const login = defineCommand({
  meta: { name: "login", description: "Sign an agent in inside SCV's private home for it (extra arguments for its own command after --)" },
  args: {
    agent: agentArg,
    "openai-compatible": { type: "boolean", description: "pi: use any OpenAI-compatible endpoint (asks for the URL, wire API, model, then the key)" },
    "base-url": { type: "string", description: "pi --openai-compatible: the endpoint's base URL" },
    "wire-api": { type: "string", description: "pi --openai-compatible: responses or chat" },
    model: { type: "string", description: "pi --openai-compatible: the default model" },
  },
  ownArgs: true,
  async run({ rawArgs }) {
    const { agentLogin } = await import("../accounts/login");
    await signInAction("login", (ctx) => agentLogin(ctx, rawArgs));
  },
});

const logout = defineCommand({
  meta: { name: "logout", description: "Sign an agent out of SCV's private home for it" },
  args: { agent: agentArg },
  ownArgs: true,
  async run({ rawArgs }) {
    const { agentLogout } = await import("../accounts/login");
    await signInAction("logout", (ctx) => agentLogout(ctx, rawArgs));
  },
});

const importCommand = defineCommand({
  meta: { name: "import", description: "Copy an existing setup into an agent's private home: codex [--from DIR], grok [--from DIR], pi --from-scv-provider, scv" },
  args: {
    agent: { type: "positional", required: true, description: "codex, grok, pi, or scv" },
    from: { type: "string", description: "codex, grok: the directory to copy from (default $CODEX_HOME or ~/.codex, $GROK_HOME or ~/.grok)" },
    "from-scv-provider": { type: "boolean", description: "pi: copy SCV's own active provider" },
  },
  async run({ rawArgs }) {
    const { agentImport } = await import("../accounts/imports/index");
    await signInAction("import", (ctx) => agentImport(ctx, rawArgs, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }));
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Every agent's sign-in state (a summary; never an account or key)" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const { agentsSignInStatus, formatSignInStatus } = await import("../accounts/status");
    await signInAction("status", async (ctx) => {
      const rows = await agentsSignInStatus(ctx);
      process.stdout.write(args.json ? `${JSON.stringify({ agents: rows }, null, 2)}\n` : `${formatSignInStatus(rows)}\n`);
      return 0;
    });
  },
});

const merge = defineCommand({
  meta: { name: "merge", description: "Merge a background job's worktree branch into the current branch (fast-forward or a merge commit; a conflict is aborted and reported)" },
  args: { job: { type: "positional", required: true, description: "the job handle (job-1) or its branch (scv/…)" } },
  async run({ args }) {
    const { findWorktree, mergeWorktree } = await import("../agents/worktree");
    try {
      const record = findWorktree(scvHome(), process.cwd(), args.job);
      const r = mergeWorktree(scvHome(), record);
      if (r.merged) process.stdout.write(`merged ${record.branch} (${r.how}, ${r.commits.length} commit${r.commits.length === 1 ? "" : "s"}); its worktree was removed\n`);
      else fail("merge", terminalSafe(r.message));
    } catch (e) {
      fail("merge", terminalSafe((e as Error).message));
    }
  },
});

const discard = defineCommand({
  meta: { name: "discard", description: "Remove a background job's worktree and its branch (its work is lost)" },
  args: { job: { type: "positional", required: true, description: "the job handle (job-1) or its branch (scv/…)" } },
  async run({ args }) {
    const { discardWorktree, findWorktree } = await import("../agents/worktree");
    try {
      const record = findWorktree(scvHome(), process.cwd(), args.job);
      discardWorktree(scvHome(), record);
      process.stdout.write(`discarded ${record.branch} and its worktree ${terminalSafe(record.path)}\n`);
    } catch (e) {
      fail("discard", terminalSafe((e as Error).message));
    }
  },
});

const worktrees = defineCommand({
  meta: { name: "worktrees", description: "The background jobs' git worktrees (branch, commits, path) of every repository" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const { listWorktrees, reconcileWorktrees } = await import("../agents/worktree");
    const { existsSync } = await import("node:fs");
    // As at start-up: a dead job's worktree with nothing unmerged goes; one with work stays, marked.
    const { removed, kept } = reconcileWorktrees(scvHome(), (pid) => existsSync(`/proc/${pid}`));
    for (const r of removed) process.stderr.write(`scv agents worktrees: removed ${terminalSafe(r.branch)}: its job's process is gone and nothing in it was unmerged\n`);
    const orphaned = new Set(kept.map((r) => r.branch));
    const rows = listWorktrees(scvHome()).map((r) => ({ ...r, ...(orphaned.has(r.branch) ? { orphaned: true } : {}) }));
    if (args.json) return void process.stdout.write(`${JSON.stringify({ worktrees: rows }, null, 2)}\n`);
    if (!rows.length) return void process.stdout.write("no worktrees\n");
    for (const r of rows) {
      const note = r.orphaned ? "  [its job's process is gone: merge or discard it]" : "";
      process.stdout.write(`${terminalSafe(`${r.job}  ${r.session}  ${r.branch}  ${r.path}  (repository ${r.repo})${note}`)}\n`);
    }
  },
});

const list = defineCommand({
  meta: { name: "list", description: "The agents a session here offers: the coding agents found, then your agent files (~/.scv/agents, a trusted project's .scv/agents)" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const { loadConfig } = await import("../config/load");
    const { offeredAgents } = await import("../agents/offer");
    const { withAgentFiles } = await import("../agents/personas");
    const { loadAgentFiles } = await import("../command-files/agents");
    const { DESCRIPTORS } = await import("../agents/descriptors");
    const where = { scvHome: scvHome(), workspace: process.cwd() };
    const offered = withAgentFiles(offeredAgents({ config: loadConfig().config, env: process.env, scvHome: where.scvHome }), where);
    const files = loadAgentFiles({ ...where, builtins: DESCRIPTORS.map((d) => d.name) });
    const rows = offered.map((o) => ({ name: o.descriptor.name, kind: o.persona ? "agent file" : "coding agent", what: o.persona ? o.persona.description : `${o.descriptor.product} (${o.executable})`, ...(o.persona ? { file: o.persona.file } : {}) }));
    // Files that load but are not offered: the nested SCV they run on is not set up or not found.
    const waiting = files.items.filter((f) => !offered.some((o) => o.persona?.file === f.file));
    if (args.json) return void process.stdout.write(`${JSON.stringify({ agents: rows, not_offered: waiting.map((f) => f.file), notices: files.notices }, null, 2)}\n`);
    const width = Math.max(4, ...rows.map((r) => r.name.length));
    for (const r of rows) process.stdout.write(`${r.name.padEnd(width)}  ${r.kind.padEnd(12)}  ${terminalSafe(r.what)}\n`);
    if (!rows.length) process.stdout.write("no agents offered here (scv agents status says why)\n");
    for (const f of waiting) process.stderr.write(`note: ${f.file}: not offered: agent files run on the nested SCV, which is not set up (scv agents login scv)\n`);
    for (const n of files.notices) process.stderr.write(`note: ${n}\n`);
  },
});

export default defineCommand({
  meta: { name: "agents", description: "Delegated agents: the ones offered, running delegations, stopping them, worktrees, transcript cleanup, sign-in" },
  subCommands: { list, ps, kill, merge, discard, worktrees, gc, login, logout, import: importCommand, status },
});
