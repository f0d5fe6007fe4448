// `scv` in a terminal: a conversation you can stay in. A client of the same protocol the stdio server speaks,
// on an in-process server as `scv exec` uses. The prompt is drawn before the server modules load, so the
// screen answers at once; rendering runs on a frame timer, decoupled from the model stream, so typing never
// waits for a slow model.
import { statSync } from "node:fs";
import { completions, parseSlash, SLASH_COMMANDS } from "./commands";
import { PromptEditor } from "./editor";
import { SessionPicker } from "./picker";
import { storedWorkspace } from "../sessions/workspace";
import { createKeyDecoder, type Key } from "./keys";
import { Screen } from "./screen";
import { styleFor } from "../terminal/style";
import { openTerminal } from "./terminal";
import { runSlashCommand, type SlashContext } from "./run-command";
import { contextShare, formatTokens, truncate } from "./text";
import { type ApprovalOutcome, ConversationView } from "./view";

export interface TuiOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Reopen a stored session: an ID, or "" to pick one from a list. */
  resume?: string;
  /** Reopen the newest stored session of this workspace (--continue). */
  continueNewest?: boolean;
}

type Client = {
  request<T = any>(method: string, params: unknown): Promise<T>;
  closeAll(): Promise<void>;
};

const FRAME_MS = 33;

/** The stored sessions from the index (loaded with the server, after the first frame). */
async function listStored(store: import("../sessions/index").SessionStore, opts: { workspace: string; limit: number }) {
  return (await import("../ledger/index")).listSessions(store, opts);
}
const DOUBLE_PRESS_MS = 2000;

export async function runTui(opts: TuiOptions): Promise<number> {
  const term = openTerminal();
  const theme = styleFor(process.stdout, opts.env);
  const screen = new Screen(term);
  const view = new ConversationView(theme, () => term.columns());
  const editor = new PromptEditor();
  const decode = createKeyDecoder();

  let client: Client | undefined;
  let store: import("../sessions/index").SessionStore | undefined;
  let picker: SessionPicker | undefined;
  let sessionId = "";
  let model = "";
  let contextWindow: number | undefined;
  let config: import("../config/schema").Config | undefined;
  /** What the open session spent (own model and delegated agents), from the usage ledger. */
  let spend: import("./spend").Spend | undefined;
  let tools: string[] = [];
  let status = "starting…";
  let frame = 0;
  let lastCtrlC = 0;
  let exiting = false;
  const approvedIdentities = new Set<string>();
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));

  // Rendering: at most one frame per FRAME_MS, and a spinner tick while anything runs.
  let scheduled: ReturnType<typeof setTimeout> | undefined;
  const render = () => {
    scheduled = undefined;
    if (exiting) return;
    const width = term.columns();
    const live = [...view.live(frame), ...(picker?.lines(theme, width) ?? [])];
    const prompt = view.approval ? theme.dim("› ") : theme.cyan("› ");
    const ed = editor.render(width, prompt);
    const hints = completions(editor.text).map((c) => truncate(`  ${theme.bold(`/${c.name}`)}${c.args ? ` ${c.args}` : ""}  ${theme.dim(c.description)}`, width));
    const statusLine = truncate(theme.dim(statusText()), width);
    const lines = [...live, "", ...ed.lines, ...hints, statusLine];
    const top = live.length + 1;
    screen.draw(view.takeCommitted(), { lines, cursorRow: top + ed.cursorRow, cursorCol: ed.cursorCol });
  };
  const requestRender = () => {
    scheduled ??= setTimeout(render, FRAME_MS);
  };
  const ticker = setInterval(() => {
    if (view.turnRunning || view.approval) {
      frame++;
      requestRender();
    }
  }, 100);

  let spendText: ((s: import("./spend").Spend) => string) | undefined;
  async function refreshSpend() {
    if (!store || !config || !sessionId) return;
    const m = await import("./spend");
    spendText = m.describeSpend;
    try {
      spend = await m.sessionSpend(store.home, config, sessionId);
    } catch {
      return; // the status line goes without; the turn is unaffected
    }
    requestRender();
  }

  function statusText(): string {
    const parts = [model || "…", sessionId || status];
    if (!sessionId) return `  ${status}`;
    const u = view.lastUsage;
    if (u) parts.push(`context ${formatTokens(u.input_tokens)}${contextWindow ? ` (${contextShare(u.input_tokens, contextWindow)})` : ""}`);
    if (spend && spend.tokens > 0 && spendText) parts.push(spendText(spend));
    if (view.jobs.size) parts.push(`jobs: ${[...view.jobs].map(([job, line]) => (line === "running" ? job : `${job} (${line})`)).join(", ")}`);
    return `  ${parts.join(" · ")}`;
  }

  const slashContext: SlashContext = {
    view,
    theme,
    cwd: opts.cwd,
    env: opts.env,
    session: () => ({ id: sessionId, model, tools, contextWindow }),
    usage: async () => (store && config && sessionId ? (await import("./spend")).usageLines(store.home, config, sessionId) : ["no session is open"]),
    request: (method, params) => client!.request(method, params),
    startSession,
    closeSession: () => closeSession(),
    openPicker,
    quit,
    requestRender,
  };

  render();

  // The server loads after the first frame is on screen.
  try {
    const { createInProcessClient } = await import("../server/in-process-client");
    const { recordRunsIn, requestSubreaper } = await import("../process/index");
    const { reconcileAtStartup } = await import("../agents/reconcile");
    const { loadConfig, scvHome } = await import("../config/load");
    const { openSessionStore } = await import("../sessions/index");
    // As in exec: escapees reparent to us, and every run is recorded so a later SCV stops what a killed one left.
    requestSubreaper();
    recordRunsIn(scvHome(opts.env));
    void reconcileAtStartup(scvHome(opts.env));
    store = openSessionStore({ home: scvHome(opts.env) });
    // Index notices (a rebuild) belong on the screen, not on stderr under it.
    (await import("../ledger/index")).ledgerFor(store.home, { warn: (m) => (view.say(`note: ${m}`, theme.yellow), requestRender()) });
    config = loadConfig({ cwd: opts.cwd, env: opts.env }).config;
    store.prune(config.sessions.keep_days);
    client = createInProcessClient({
      env: opts.env,
      sessions: store,
      baseDepth: Number(opts.env.SCV_DELEGATION_DEPTH ?? 0) || 0,
      onNotification(...notification) {
        const [method, p] = notification;
        if (p.session_id && p.session_id !== sessionId) return;
        view.apply(...notification);
        if (method === "turn.ended") void refreshSpend();
        if (method === "approval.requested" && view.approval && approvedIdentities.has(view.approval.identity)) {
          void answerApproval(true, "approved for this session");
        }
        requestRender();
      },
    });
    await client.request("initialize", { protocol_version: 3, client: { name: "scv-tui" } });
    if (opts.resume === "") await openPicker(true);
    else if (opts.resume === undefined && opts.continueNewest) await continueNewest();
    else await startSession(opts.resume);
    requestRender();
  } catch (e) {
    view.say(`scv: ${(e as Error).message}`, theme.red);
    // A configuration error exits 78 as in `scv exec`, whether the config check here or session.start found it.
    const { ConfigError } = await import("../config/load");
    return finish(e instanceof ConfigError || (e as { code?: number }).code === -32004 ? 78 : 1);
  }

  term.onInput((chunk) => {
    for (const key of decode(chunk)) onKey(key);
    requestRender();
  });
  term.onResize(() => render());
  for (const sig of ["SIGTERM", "SIGHUP"] as const) process.on(sig, () => void quit());

  return exited;

  async function startSession(resume?: string, modelName?: string) {
    if (!client) return;
    const model_ = modelName ? { model: modelName } : {};
    const started = resume
      ? await client.request("session.resume", { session_id: resume, ...model_ })
      : await client.request("session.start", { cwd: opts.cwd, ...model_ });
    sessionId = started.session_id;
    model = started.model;
    contextWindow = started.context_window;
    tools = started.tools ?? [];
    for (const turn of started.turns ?? []) view.replay(sessionId, turn);
    view.plan = started.plan ?? [];
    for (const job of started.jobs ?? []) if (job.status === "interrupted") view.say(`job ${job.job} (agent ${job.agent}) was interrupted when its process ended`, theme.yellow);
    for (const w of [...(started.warnings ?? []), ...(started.notices ?? [])]) view.say(`note: ${w}`, theme.yellow);
    view.say(`${resume ? "resumed" : "session"} ${sessionId} in ${started.workspace} · /help for keys and commands`, theme.dim);
  }

  /** --continue: the newest session of this workspace, or a fresh one when there is none. */
  async function continueNewest() {
    const newest = store && (await listStored(store, { workspace: storedWorkspace(opts.cwd), limit: 1 }))[0];
    if (!newest) view.say("no earlier session here to continue; starting a new one", theme.dim);
    await startSession(newest?.id);
  }

  /** Shows this workspace's stored sessions to pick from (Up/Down, Enter, Esc). */
  async function openPicker(startFresh: boolean) {
    const items = (store ? await listStored(store, { workspace: storedWorkspace(opts.cwd), limit: 20 }) : []).filter((s) => s.id !== sessionId);
    if (!items.length) {
      view.say("no stored sessions of this workspace to resume (`scv sessions list --all` shows every workspace's)", theme.dim);
      if (startFresh) await startSession();
      return;
    }
    picker = new SessionPicker(items, startFresh);
  }

  async function onPickerKey(key: Key) {
    const p = picker!;
    const choice = p.key(key);
    if (choice?.kind === "cancel") {
      picker = undefined;
      if (p.startFresh || !sessionId) await startSession();
    } else if (choice?.kind === "open") {
      picker = undefined;
      await closeSession();
      try {
        await startSession(choice.id);
      } catch (e) {
        view.say(`could not resume: ${(e as Error).message}`, theme.red);
        if (!sessionId) await startSession();
      }
    }
    requestRender();
  }

  function onKey(key: Key) {
    if (key.kind === "ctrlC") return void onCtrlC();
    if (picker) return void onPickerKey(key);
    if (view.approval) {
      if (key.kind === "text") {
        const k = key.text.toLowerCase();
        if (k === "y") return void answerApproval(true, "approved");
        if (k === "a") {
          approvedIdentities.add(view.approval.identity);
          return void answerApproval(true, "approved for this session");
        }
        if (k === "n") return void answerApproval(false, "denied");
        if ((k === "p" || k === "u") && view.approval.rulePrefix) return void answerApproval(true, "approved and kept as a rule", k === "p" ? "workspace" : "user");
      }
      if (key.kind === "escape") return void answerApproval(false, "denied");
      return; // the card holds the keyboard until it is answered
    }
    if (key.kind === "ctrlD") {
      if (editor.isEmpty) void quit();
      return;
    }
    if (key.kind === "ctrlO") {
      if (!view.expandLastResult()) view.say("no tool result yet", theme.dim);
      return;
    }
    if (key.kind === "ctrlL") return void render();
    if (key.kind === "tab") {
      const c = completions(editor.text);
      if (c.length === 1) editor.setText(`/${c[0]!.name}${c[0]!.args ? " " : ""}`);
      return;
    }
    const action = editor.handle(key);
    if (action.kind === "submit") void submit(action.text);
  }

  async function answerApproval(approved: boolean, decision: ApprovalOutcome, remember?: "workspace" | "user") {
    const a = view.approval;
    if (!a || !client) return;
    view.clearApproval(decision);
    requestRender();
    const r = await client.request("approval.resolve", { session_id: sessionId, approval_id: a.approvalId, approved, ...(remember ? { remember } : {}) }).catch(() => undefined);
    if (r?.rule_error) view.say(`the rule was not kept: ${r.rule_error}`, theme.yellow);
    else if (r?.rule) view.say(`kept: always allow commands starting with \`${r.rule}\` ${remember === "workspace" ? "in this project" : "in every project"} (scv rules list)`, theme.dim);
    requestRender();
  }

  function onCtrlC() {
    const now = Date.now();
    const again = now - lastCtrlC < DOUBLE_PRESS_MS;
    lastCtrlC = now;
    if (again) return void quit();
    if (view.turnRunning) {
      view.setNotice("cancelling… (Ctrl-C again within 2 s to exit)");
      view.cancelling = true;
      if (view.approval) view.clearApproval("denied");
      void client?.request("turn.cancel", { session_id: sessionId }).catch(() => {});
    } else if (!editor.isEmpty) {
      editor.clear();
      lastCtrlC = 0;
    } else view.setNotice("press Ctrl-C again to exit, or Ctrl-D");
    requestRender();
  }

  async function submit(text: string) {
    view.setNotice(undefined);
    const slash = parseSlash(text);
    if (slash && SLASH_COMMANDS.some((c) => c.name === slash.name)) return runSlashCommand(slashContext, slash.name, slash.arg);
    if (slash && text.trim().split(/\s/)[0] === text.trim()) {
      view.say(`unknown command /${slash.name}; /help lists the commands`, theme.yellow);
      return;
    }
    try {
      const images = imagePathsIn(text, opts.cwd, opts.env.HOME);
      let r: { queued: boolean };
      try {
        r = await client!.request("turn.start", { session_id: sessionId, prompt: text, ...(images.length ? { images } : {}) });
        if (images.length) view.say(`attached ${images.length === 1 ? "image" : `${images.length} images`}: ${images.map((p) => p.split("/").pop()).join(", ")}`, theme.dim);
      } catch (e) {
        if (!images.length) throw e;
        // The prompt still goes: only the image stays behind, and the person is told why.
        view.say(`image not attached: ${(e as Error).message}`, theme.yellow);
        r = await client!.request("turn.start", { session_id: sessionId, prompt: text });
      }
      if (r.queued) view.say(`queued: ${truncate(text.split("\n")[0]!, 60)}`, theme.dim);
    } catch (e) {
      view.say(`could not send: ${(e as Error).message}`, theme.red);
    }
    requestRender();
  }

  async function closeSession(announce = true) {
    if (!sessionId || !client) return;
    const id = sessionId;
    if (announce && view.jobs.size) view.say(`stopping ${view.jobs.size} background job${view.jobs.size === 1 ? "" : "s"}…`, theme.yellow);
    requestRender();
    await client.request("session.close", { session_id: id }).catch(() => {});
    view.jobs.clear();
    sessionId = "";
  }

  async function quit() {
    if (exiting) return;
    const jobs = view.jobs.size;
    if (jobs) view.say(`exiting: stopping ${jobs} background job${jobs === 1 ? "" : "s"} and their processes…`, theme.yellow);
    render();
    await closeSession(false);
    await client?.closeAll().catch(() => {});
    finish(0);
  }

  function finish(code: number): Promise<number> {
    exiting = true;
    clearInterval(ticker);
    if (scheduled) clearTimeout(scheduled);
    const rest = view.takeCommitted();
    screen.release();
    if (rest.length) term.write(`${rest.join("\r\n")}\r\n`);
    term.restore();
    resolveExit(code);
    return exited;
  }
}

/**
 * Image files named in a prompt, as a terminal pastes a dragged file: a path (absolute, ~/…, or relative to the
 * workspace) ending .png/.jpg/.jpeg/.gif/.webp, maybe quoted or with backslash-escaped spaces, that exists.
 */
export function imagePathsIn(text: string, cwd: string, home: string | undefined): string[] {
  const found: string[] = [];
  const words = text.match(/'[^'\n]+'|"[^"\n]+"|(?:\\ |\S)+/g) ?? [];
  for (const word of words) {
    let p = word.replace(/^(['"])(.*)\1$/, "$2").replace(/\\ /g, " ");
    if (!/\.(png|jpe?g|gif|webp)$/i.test(p)) continue;
    if (p.startsWith("~/") && home) p = `${home}${p.slice(1)}`;
    const abs = p.startsWith("/") ? p : `${cwd}/${p}`;
    try {
      if (statSync(abs).isFile() && !found.includes(abs)) found.push(abs);
    } catch {
      // not a file: just words
    }
  }
  return found;
}
