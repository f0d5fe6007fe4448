// `scv` in a terminal: a conversation you can stay in. A client of the same protocol the stdio server speaks,
// on an in-process server as `scv exec` uses. The prompt is drawn before the server modules load, so the
// screen answers at once; rendering runs on a frame timer, decoupled from the model stream, so typing never
// waits for a slow model.
import { statSync } from "node:fs";
import { completions, didYouMean, parseSlash, SLASH_ALIASES, SLASH_COMMANDS } from "./commands";
import { PromptEditor } from "./editor";
import { SessionPicker } from "./picker";
import { storedWorkspace } from "../sessions/workspace";
import { createKeyDecoder, type Key } from "./keys";
import { Screen } from "./screen";
import { type Style, styleFor } from "../terminal/style";
import { openTerminal } from "./terminal";
import { runSlashCommand, type SlashContext } from "./run-command";
import { contextShare, formatTokens, sanitize, truncate } from "./text";
import { type ApprovalOutcome, ConversationView } from "./view";

type ApprovalMode = "ask" | "accept-edits";

export interface TuiOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Reopen a stored session: an ID, or "" to pick one from a list. */
  resume?: string;
  /** Reopen the newest stored session of this workspace (--continue). */
  continueNewest?: boolean;
  /** Reasoning effort for a new session (--effort). */
  effort?: string;
  /** Approve every tool call unasked (--yes). */
  autoApprove?: boolean;
  /** Start in accept-edits mode (--accept-edits; Shift-Tab switches). */
  acceptEdits?: boolean;
  /** Sent as the first turn once the session is open (`scv "fix the bug"`). */
  prompt?: string;
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

export function runTui(opts: TuiOptions): Promise<number> {
  return new TuiApp(opts).run();
}

/** One interactive session on screen: the terminal, the conversation view, the prompt editor and the client. */
class TuiApp {
  private readonly term = openTerminal();
  private readonly theme: Style;
  private readonly screen: Screen;
  private readonly view: ConversationView;
  private readonly editor = new PromptEditor();
  private readonly decode = createKeyDecoder();
  private client: Client | undefined;
  private store: import("../sessions/index").SessionStore | undefined;
  private picker: SessionPicker | undefined;
  /** The `/model` picker while it is open, and what its choice resolves. */
  private modelPicker: { picker: import("./model-picker").ModelPicker; resolve: (choice: import("./model-picker").ModelChoice | undefined) => void } | undefined;
  /** /rewind, /undo, /redo while they show a list or ask (src/tui/rewind.ts, loaded at first use). */
  private rewind: import("./rewind").RewindFlow | undefined;
  private lastEscape = 0;
  private sessionId = "";
  /** The prompt history across sessions (loaded with the server) and, while Ctrl-R is open, its search. */
  private promptHistory: typeof import("./prompt-history") | undefined;
  private historySearch: import("./prompt-history").HistorySearch | undefined;
  /** The `@` file picker while a mention is typed (its module loads at the first `@`), and a mention Esc closed. */
  private mentions: typeof import("./file-mention") | undefined;
  private filePicker: import("./file-mention").FilePicker | undefined;
  private dismissedMention: string | undefined;
  /** The session open last, named on the way out so it can be resumed. */
  private lastSessionId = "";
  private model = "";
  private contextWindow: number | undefined;
  private config: import("../config/schema").Config | undefined;
  /** Offers a card nobody answers here to the owner where they are, through the daemon ([notify], issue 54). */
  private away: import("../daemon/away-link").AwayLink | undefined;
  /** What the open session spent (own model and delegated agents), from the usage ledger. */
  private spend: import("./spend").Spend | undefined;
  private spendText: ((s: import("./spend").Spend) => string) | undefined;
  private tools: string[] = [];
  /** The person's command files (~/.scv/commands, a trusted project's .scv/commands), loaded with the server. */
  private userCommands: import("./user-commands").UserCommands | undefined;
  private status = "starting…";
  private frame = 0;
  private lastCtrlC = 0;
  private exiting = false;
  /** Calls approved with `a`, by identity: identical ones are approved unasked for the session. */
  private readonly approvedIdentities = new Set<string>();
  /** How sessions ask (Shift-Tab, /mode): `accept-edits` runs file edits inside the workspace unasked. */
  private approvalMode: ApprovalMode;
  /** The model's open question (clarify), shown as a card above the prompt. */
  private question?: { id: string; card: import("./question").QuestionCard };
  private resolveExit!: (code: number) => void;
  private readonly exited = new Promise<number>((r) => (this.resolveExit = r));
  // Rendering: at most one frame per FRAME_MS, and a spinner tick while anything runs.
  private scheduled: ReturnType<typeof setTimeout> | undefined;
  private readonly ticker: ReturnType<typeof setInterval>;
  private readonly slashContext: SlashContext;

  constructor(private readonly opts: TuiOptions) {
    this.theme = styleFor(process.stdout, opts.env);
    this.approvalMode = opts.acceptEdits ? "accept-edits" : "ask";
    this.screen = new Screen(this.term);
    this.view = new ConversationView(this.theme, () => this.term.columns());
    this.ticker = setInterval(() => {
      if (this.view.turnRunning || this.view.approval) {
        this.frame++;
        this.requestRender();
      }
    }, 100);
    this.slashContext = {
      view: this.view,
      theme: this.theme,
      cwd: opts.cwd,
      env: opts.env,
      session: () => ({ id: this.sessionId, model: this.model, tools: this.tools, contextWindow: this.contextWindow }),
      switched: (next) => {
        this.model = next.model;
        this.contextWindow = next.contextWindow;
      },
      usage: async () =>
        this.store && this.config && this.sessionId ? (await import("./spend")).usageLines(this.store.home, this.config, this.sessionId) : ["no session is open"],
      request: (method, params) => this.client!.request(method, params),
      startSession: (resume, modelName) => this.startSession(resume, modelName),
      closeSession: () => this.closeSession(),
      openPicker: (startFresh) => this.openPicker(startFresh),
      rewind: (which) => this.openRewind(which),
      pickModel: (picker) =>
        new Promise((resolve) => {
          this.modelPicker = { picker, resolve };
          this.requestRender();
        }),
      mode: () => this.approvalMode,
      setMode: (mode) => this.setApprovalMode(mode),
      ownCommands: () => this.userCommands?.menu ?? [],
      quit: () => this.quit(),
      requestRender: () => this.requestRender(),
    };
  }

  async run(): Promise<number> {
    this.render();
    // The server loads after the first frame is on screen.
    try {
      await this.connect();
    } catch (e) {
      this.view.say(`scv: ${(e as Error).message}`, this.theme.red);
      // A configuration error exits 78 as in `scv exec`, whether the config check here or session.start found it.
      const { ConfigError } = await import("../config/load");
      return this.finish(e instanceof ConfigError || (e as { code?: number }).code === -32004 ? 78 : 1);
    }
    this.term.onInput((chunk) => {
      for (const key of this.decode(chunk)) this.onKey(key);
      this.requestRender();
    });
    this.term.onResize(() => this.render());
    for (const sig of ["SIGTERM", "SIGHUP"] as const) process.on(sig, () => void this.quit());
    return this.exited;
  }

  private render() {
    const { term, theme, view, editor } = this;
    this.scheduled = undefined;
    if (this.exiting) return;
    const width = term.columns();
    view.liveRows = term.rows() - 4; // the prompt, the status line and the blank line between stay visible
    const live = [...view.live(this.frame), ...(this.picker?.lines(theme, width) ?? []), ...(this.modelPicker?.picker.lines(theme, width) ?? []), ...(this.rewind?.lines(width) ?? []), ...(this.question?.card.lines(theme, width) ?? []), ...this.searchLines(width), ...(this.filePicker?.lines(theme, width) ?? [])];
    const prompt = view.approval ? theme.dim("› ") : theme.cyan("› ");
    const ed = editor.render(width, prompt);
    // The first row is the highlighted one: Tab completes it, Enter runs it.
    const hints = completions(editor.text, this.userCommands?.menu).map((c, i) => truncate(`${i === 0 ? theme.cyan("›") : " "} ${theme.bold(`/${c.name}`)}${c.args ? ` ${c.args}` : ""}  ${theme.dim(c.description)}`, width));
    const statusLine = truncate(theme.dim(this.statusText()), width);
    const lines = [...live, "", ...ed.lines, ...hints, statusLine];
    const top = live.length + 1;
    this.screen.draw(view.takeCommitted(), { lines, cursorRow: top + ed.cursorRow, cursorCol: ed.cursorCol });
  }

  /** The Ctrl-R search as a line above the editor. */
  private searchLines(width: number): string[] {
    const s = this.historySearch;
    if (!s) return [];
    const match = s.match;
    const shown = match === undefined ? this.theme.yellow("no match") : sanitize(match.split("\n")[0]!);
    return [truncate(`${this.theme.cyan("history search")} ${sanitize(s.query)}${this.theme.dim(" ›")} ${shown}`, width), truncate(this.theme.dim("  Ctrl-R older · Enter take it · Esc leave"), width)];
  }

  /** Keys while the Ctrl-R search is open. */
  private onSearchKey(key: Key) {
    const s = this.historySearch!;
    if (key.kind === "text") s.type(key.text);
    else if (key.kind === "backspace") s.backspace();
    else if (key.kind === "ctrlR") s.older();
    else if (key.kind === "enter") {
      const match = s.match;
      this.historySearch = undefined;
      if (match !== undefined) this.editor.setText(match);
    } else if (key.kind === "escape" || key.kind === "ctrlC") this.historySearch = undefined;
  }

  private requestRender() {
    this.scheduled ??= setTimeout(() => this.render(), FRAME_MS);
  }

  private statusText(): string {
    const parts = [this.model || "…", this.sessionId || this.status];
    if (!this.sessionId) return `  ${this.status}`;
    const u = this.view.lastUsage;
    if (u) parts.push(`context ${formatTokens(u.input_tokens)}${this.contextWindow ? ` (${contextShare(u.input_tokens, this.contextWindow)})` : ""}`);
    if (this.spend && this.spend.tokens > 0 && this.spendText) parts.push(this.spendText(this.spend));
    if (this.approvalMode === "accept-edits") parts.push("accept edits on (Shift-Tab to turn off)");
    if (this.view.jobs.size) parts.push(`jobs: ${[...this.view.jobs].map(([job, line]) => (line === "running" ? job : `${job} (${line})`)).join(", ")}`);
    return `  ${parts.join(" · ")}`;
  }

  /** What the session spent so far, for the status line, read again after each turn. */
  private async refreshSpend() {
    if (!this.store || !this.config || !this.sessionId) return;
    const m = await import("./spend");
    this.spendText = m.describeSpend;
    try {
      this.spend = await m.sessionSpend(this.store.home, this.config, this.sessionId);
    } catch {
      return; // the status line goes without; the turn is unaffected
    }
    this.requestRender();
  }

  /** Loads the server, stops what a killed SCV left, opens the store and the first session (or the picker). */
  private async connect() {
    const { opts, view } = this;
    const { createInProcessClient } = await import("../server/in-process-client");
    const { recordRunsIn, requestSubreaper } = await import("../process/index");
    const { reconcileAtStartup } = await import("../agents/reconcile");
    const { loadConfig, scvHome } = await import("../config/load");
    const { openSessionStore } = await import("../sessions/index");
    // As in exec: escapees reparent to us, and every run is recorded so a later SCV stops what a killed one left.
    requestSubreaper();
    recordRunsIn(scvHome(opts.env));
    void reconcileAtStartup(scvHome(opts.env));
    this.store = openSessionStore({ home: scvHome(opts.env) });
    // Index notices (a rebuild) belong on the screen, not on stderr under it.
    (await import("../ledger/index")).ledgerFor(this.store.home, { warn: (m) => (view.say(`note: ${m}`, this.theme.yellow), this.requestRender()) });
    this.config = loadConfig({ cwd: opts.cwd, env: opts.env }).config;
    this.userCommands = (await import("./user-commands")).UserCommands.load({ scvHome: scvHome(opts.env), workspace: opts.cwd, builtins: [...SLASH_COMMANDS.map((c) => c.name), ...Object.keys(SLASH_ALIASES)] });
    for (const n of this.userCommands.notices) view.say(`note: ${n}`, this.theme.yellow);
    this.promptHistory = await import("./prompt-history");
    this.editor.seedHistory(this.promptHistory.readPromptHistory(this.store.home));
    this.store.prune(this.config.sessions.keep_days);
    const { AwayLink } = await import("../daemon/away-link");
    this.away = new AwayLink({ scvHome: scvHome(opts.env), afterSeconds: this.config.notify?.after_seconds ?? 60, longTurnSeconds: this.config.notify?.long_turn_seconds ?? 120, source: "the terminal", answered: (id, a) => void this.answeredAway(id, a) });
    this.client = createInProcessClient({
      env: opts.env,
      sessions: this.store,
      baseDepth: Number(opts.env.SCV_DELEGATION_DEPTH ?? 0) || 0,
      onNotification: (...notification) => {
        const [method, p] = notification;
        if (p.session_id && p.session_id !== this.sessionId) return;
        view.apply(...notification);
        if (method === "turn.ended") void this.refreshSpend();
        if (method === "turn.ended") this.userCommands?.ended(p.turn_id);
        if (method === "approval.requested" && view.approval && this.userCommands?.allows(p.turn_id, view.approval.tool, view.approval.summary)) {
          void this.answerApproval(true, "allowed by the command's allowed-tools");
        }
        if (method === "clarify.requested") {
          void this.openQuestion(p);
          this.away?.waitingFor({ session_id: p.session_id, approval_id: p.clarify_id, tool: "clarify", risk: "read_only", summary: p.question, workspace: this.opts.cwd }, { text: p.question, ...(p.choices ? { choices: p.choices } : {}) });
        }
        if (method === "clarify.answered" && this.question?.id === p.clarify_id) {
          this.question = undefined; // settled elsewhere (timed out)
          this.away?.answeredHere();
        }
        if (method === "approval.requested" && view.approval && !view.approval.personOnly && this.approvedIdentities.has(view.approval.identity)) {
          void this.answerApproval(true, "approved for this session");
        } else if (method === "approval.requested" && view.approval) this.away?.waitingFor(p);
        if (method === "turn.ended") {
          this.away?.answeredHere("the terminal (its turn ended)");
          this.away?.turnEnded(p, this.opts.cwd);
        }
        if (method === "turn.started") this.away?.turnStarted();
        this.requestRender();
      },
    });
    await this.client.request("initialize", { protocol_version: 3, client: { name: "scv-tui" } });
    await this.showScheduleNotices(scvHome(opts.env));
    if (opts.resume === "") await this.openPicker(true);
    else if (opts.resume === undefined && opts.continueNewest) await this.continueNewest();
    else await this.startSession(opts.resume);
    if (opts.prompt && this.sessionId) void this.submit(opts.prompt);
    this.requestRender();
  }

  private async startSession(resume?: string, modelName?: string) {
    const { view, theme } = this;
    if (!this.client) return;
    const model_ = modelName ? { model: modelName } : {};
    const approve = { ...(this.opts.autoApprove ? { auto_approve: true } : {}), ...(this.approvalMode !== "ask" ? { approval_mode: this.approvalMode } : {}) };
    const effort = this.opts.effort ? { reasoning_effort: this.opts.effort } : {};
    const started = resume
      ? await this.client.request("session.resume", { session_id: resume, ...model_, ...approve, questions: true })
      : await this.client.request("session.start", { cwd: this.opts.cwd, ...model_, ...approve, ...effort, questions: true });
    this.sessionId = started.session_id;
    this.lastSessionId = this.sessionId;
    this.model = started.model;
    this.contextWindow = started.context_window;
    this.tools = started.tools ?? [];
    for (const turn of started.turns ?? []) view.replay(this.sessionId, turn);
    view.plan = started.plan ?? [];
    for (const job of started.jobs ?? []) if (job.status === "interrupted") view.say(`job ${job.job} (agent ${job.agent}) was interrupted when its process ended`, theme.yellow);
    for (const w of [...(started.warnings ?? []), ...(started.notices ?? [])]) view.say(`note: ${w}`, theme.yellow);
    view.say(`${resume ? "resumed" : "session"} ${this.sessionId} in ${started.workspace} · /help for keys and commands`, theme.dim);
  }

  /** What schedules could not tell the owner in a chat (no channel, or it was logged out), shown once. */
  private async showScheduleNotices(home: string) {
    const { hasNotices, takeNotices } = await import("../schedules/notices");
    if (!hasNotices(home)) return;
    for (const n of takeNotices(home)) this.view.say(`while you were away (${n.at}): ${n.text}`, this.theme.yellow);
  }

  /** --continue: the newest session of this workspace, or a fresh one when there is none. */
  private async continueNewest() {
    const newest = this.store && (await listStored(this.store, { workspace: storedWorkspace(this.opts.cwd), limit: 1 }))[0];
    if (!newest) this.view.say("no earlier session here to continue; starting a new one", this.theme.dim);
    await this.startSession(newest?.id);
  }

  /** Shows this workspace's stored sessions to pick from (Up/Down, Enter, Esc). */
  private async openPicker(startFresh: boolean) {
    const items = (this.store ? await listStored(this.store, { workspace: storedWorkspace(this.opts.cwd), limit: 20 }) : []).filter((s) => s.id !== this.sessionId);
    if (!items.length) {
      this.view.say("no stored sessions of this workspace to resume (`scv sessions list --all` shows every workspace's)", this.theme.dim);
      if (startFresh) await this.startSession();
      return;
    }
    this.picker = new SessionPicker(items, startFresh);
  }

  private async onPickerKey(key: Key) {
    const p = this.picker!;
    const choice = p.key(key);
    if (choice?.kind === "cancel") {
      this.picker = undefined;
      if (p.startFresh || !this.sessionId) await this.startSession();
    } else if (choice?.kind === "open") {
      this.picker = undefined;
      await this.closeSession();
      try {
        await this.startSession(choice.id);
      } catch (e) {
        this.view.say(`could not resume: ${(e as Error).message}`, this.theme.red);
        if (!this.sessionId) await this.startSession();
      }
    }
    this.requestRender();
  }

  private onKey(key: Key) {
    this.away?.key();
    const { view, editor } = this;
    if (this.historySearch) return this.onSearchKey(key);
    if (key.kind === "ctrlC" && this.modelPicker) return this.onModelPickerKey(key);
    if (key.kind === "ctrlC") return void this.onCtrlC();
    if (this.picker) return void this.onPickerKey(key);
    if (this.question) return void this.onQuestionKey(key); // the question holds the keyboard until answered or skipped
    if (this.rewind?.open) return this.rewind.key(key);
    if (view.approval) return this.onApprovalKey(key); // the card holds the keyboard until it is answered
    if (this.modelPicker) return this.onModelPickerKey(key);
    if (this.filePicker && (key.kind === "escape" || (!this.filePicker.empty && ["up", "down", "tab", "enter"].includes(key.kind)))) return this.onFilePickerKey(key);
    if (key.kind === "ctrlD") {
      if (editor.isEmpty) void this.quit();
      return;
    }
    if (key.kind === "ctrlO") {
      if (!view.expandLastResult()) view.say("no tool result yet", this.theme.dim);
      return;
    }
    if (key.kind === "ctrlR") {
      const { HistorySearch } = this.promptHistory ?? {};
      if (HistorySearch) this.historySearch = new HistorySearch(() => editor.prompts());
      return;
    }
    if (key.kind === "ctrlL") {
      this.screen.clear();
      return void this.render();
    }
    if (key.kind === "escape" && editor.isEmpty && !view.turnRunning && !this.filePicker) {
      // Esc Esc on an empty prompt opens /rewind, as in Claude Code.
      const again = Date.now() - this.lastEscape < DOUBLE_PRESS_MS;
      this.lastEscape = again ? 0 : Date.now();
      if (again) void this.openRewind("rewind");
      return;
    }
    if (key.kind === "shiftTab") return void this.setApprovalMode(this.approvalMode === "ask" ? "accept-edits" : "ask");
    if (key.kind === "tab") {
      const c = completions(editor.text, this.userCommands?.menu);
      if (c.length >= 1) editor.setText(`/${c[0]!.name}${c[0]!.args ? " " : ""}`);
      return;
    }
    const action = editor.handle(key);
    if (action.kind === "submit") void this.submit(action.text);
    void this.followMention();
  }

  private onModelPickerKey(key: Key) {
    const open = this.modelPicker!;
    const r = open.picker.key(key);
    if (!r) return;
    this.modelPicker = undefined;
    open.resolve(r.kind === "pick" ? r.choice : undefined);
  }

  /** Opens, narrows or closes the `@` picker after each key, by the word before the cursor. */
  private async followMention() {
    const typed = /(?:^|\s)@[^\s@]*$/.test(this.editor.beforeCursor);
    if (!typed && !this.filePicker) return;
    this.mentions ??= await import("./file-mention");
    const query = this.mentions.mentionAt(this.editor.beforeCursor);
    if (query === undefined || query === this.dismissedMention) {
      this.filePicker = undefined;
      return this.requestRender();
    }
    this.dismissedMention = undefined;
    if (!this.filePicker) {
      try {
        this.filePicker = new this.mentions.FilePicker(this.mentions.workspaceFiles(this.opts.cwd));
      } catch (e) {
        this.view.say(`cannot list the workspace's files: ${(e as Error).message}`, this.theme.yellow);
        return;
      }
    }
    this.filePicker.update(query);
    this.requestRender();
  }

  private onFilePickerKey(key: Key) {
    const picked = this.filePicker!.key(key);
    if (!picked) return;
    const query = this.mentions!.mentionAt(this.editor.beforeCursor) ?? "";
    this.filePicker = undefined;
    if (picked.kind === "pick") this.editor.replaceBeforeCursor(query.length + 1, `@${picked.path} `);
    else this.dismissedMention = query;
  }

  /**
   * y approves once, a approves identical calls for the session, t the tool for the session, p/u keep a rule;
   * n opens one line for the reason (Enter sends it, Enter alone denies without one), Esc denies at once.
   */
  private onApprovalKey(key: Key) {
    const a = this.view.approval!;
    if (a.reason !== undefined) return this.onReasonKey(key);
    // A diff longer than the card: Down or Space shows the next page, Up the one before.
    if (key.kind === "down" || (key.kind === "text" && key.text === " ")) return void this.view.pageApproval(1);
    if (key.kind === "up") return void this.view.pageApproval(-1);
    if (key.kind === "text") {
      const k = key.text.toLowerCase();
      const digit = Number(k);
      if (a.choices && Number.isInteger(digit) && digit >= 1 && digit <= Math.min(9, a.choices.length)) {
        const c = a.choices[digit - 1]!;
        if (!a.leftOut!.delete(c)) a.leftOut!.add(c);
        return void this.requestRender();
      }
      // Of a request with parts, the ticked ones (all of them when none is left out).
      const chosen = a.choices && a.leftOut!.size ? a.choices.filter((c) => !a.leftOut!.has(c)) : undefined;
      if (chosen?.length === 0 && (k === "y" || k === "a")) return void this.answerApproval(false, "denied");
      if (k === "y") return void this.answerApproval(true, "approved", undefined, undefined, chosen);
      if (k === "a") {
        if (!chosen && !a.personOnly) this.approvedIdentities.add(a.identity);
        // On a request the server keeps (an MCP server's connection), "a" keeps it for this workspace.
        return void this.answerApproval(true, a.rememberable ? "approved for this workspace" : "approved for this session", a.rememberable ? "workspace" : undefined, undefined, chosen);
      }
      if (k === "t" && a.guardReason === undefined && !a.rulePrefix && !a.rememberable) return void this.answerApproval(true, `${a.tool} approved for this session`, "session");
      if (k === "n") {
        a.reason = "";
        return;
      }
      if ((k === "p" || k === "u") && a.rulePrefix) return void this.answerApproval(true, "approved and kept as a rule", k === "p" ? "workspace" : "user");
    }
    if (key.kind === "escape") return void this.answerApproval(false, "denied");
  }

  /** The reason line after `n`: what is typed here goes to the model with the denial, never into the prompt. */
  private onReasonKey(key: Key) {
    const a = this.view.approval!;
    if (key.kind === "text") a.reason += key.text;
    else if (key.kind === "paste") a.reason += key.text.split("\n").join(" ");
    else if (key.kind === "backspace") a.reason = [...a.reason!].slice(0, -1).join("");
    else if (key.kind === "enter") return void this.answerApproval(false, "denied", undefined, a.reason!.trim() || undefined);
    else if (key.kind === "escape") return void this.answerApproval(false, "denied");
  }

  /** Shift-Tab and /mode: how this session (and the next ones of this run) ask. */
  private async setApprovalMode(mode: ApprovalMode) {
    this.approvalMode = mode;
    this.view.say(mode === "accept-edits" ? "accept edits on: edit and write inside the workspace run unasked (not secret-like paths; network and MCP still ask; commands run unasked inside the sandbox, and one that needs more asks) · Shift-Tab turns it off" : "accept edits off: file changes ask first; commands run unasked inside the sandbox, and one that needs more asks", this.theme.dim);
    this.requestRender();
    if (this.sessionId && this.client) await this.client.request("session.configure", { session_id: this.sessionId, approval_mode: mode }).catch((e) => this.view.say(`could not switch: ${(e as Error).message}`, this.theme.red));
    this.requestRender();
  }

  private async answerApproval(approved: boolean, decision: ApprovalOutcome, remember?: "workspace" | "user" | "session", reason?: string, chosen?: string[]) {
    const a = this.view.approval;
    if (!a || !this.client) return;
    this.away?.answeredHere();
    this.view.clearApproval(decision, reason);
    this.requestRender();
    const r = await this.client
      .request("approval.resolve", { session_id: this.sessionId, approval_id: a.approvalId, approved, ...(remember ? { remember } : {}), ...(reason ? { reason } : {}), ...(chosen ? { chosen } : {}) })
      .catch(() => undefined);
    if (r?.rule_error) this.view.say(remember === "session" ? `not allowed for the session: ${r.rule_error}` : `the rule was not kept: ${r.rule_error}`, this.theme.yellow);
    else if (r?.rule) this.view.say(`kept: always allow commands starting with \`${r.rule}\` ${remember === "workspace" ? "in this project" : "in every project"} (scv rules list)`, this.theme.dim);
    this.requestRender();
  }

  /** The owner answered this screen's card elsewhere (their chat, the web page): applied here, with where. */
  private async answeredAway(approvalId: string, a: import("../daemon/away-link").RemoteAnswer) {
    if (a.text !== undefined) {
      const open = this.question;
      if (open?.id !== approvalId || !this.client) return;
      this.question = undefined;
      this.view.say(`? ${open.card.question} → ${a.text} (answered from ${a.by})`, this.theme.dim);
      this.requestRender();
      await this.client.request("clarify.answer", { session_id: this.sessionId, clarify_id: approvalId, answer: a.text }).catch(() => undefined);
      return;
    }
    if (this.view.approval?.approvalId !== approvalId) return;
    const decision = !a.approved ? "denied" : a.session ? "approved for this session" : "approved";
    await this.answerApproval(a.approved, decision, a.session ? "session" : undefined, a.reason);
    this.view.say(`  answered from ${a.by}`, this.theme.dim);
    this.requestRender();
  }

  /** A question the model asks (clarify): its card takes the keys until it is answered or skipped. */
  private async openQuestion(p: { clarify_id: string; question: string; choices?: string[] }) {
    const { QuestionCard } = await import("./question");
    this.question = { id: p.clarify_id, card: new QuestionCard(p.question, p.choices) };
    this.requestRender();
  }

  private async onQuestionKey(key: Key) {
    const open = this.question!;
    const chosen = open.card.key(key);
    if (!chosen || !this.client) return;
    this.question = undefined;
    this.away?.answeredHere();
    this.view.say(chosen.kind === "answer" ? `? ${open.card.question} → ${chosen.text}` : `? ${open.card.question} (skipped)`, this.theme.dim);
    this.requestRender();
    await this.client.request("clarify.answer", { session_id: this.sessionId, clarify_id: open.id, ...(chosen.kind === "answer" ? { answer: chosen.text } : {}) }).catch(() => undefined);
  }

  private async openRewind(which: "rewind" | "undo" | "redo") {
    if (!this.sessionId || !this.client) return this.view.say("no session is open", this.theme.dim);
    if (this.view.turnRunning) return this.view.say("a turn is running: wait for it or cancel it (Ctrl-C) before rewinding", this.theme.yellow);
    const { RewindFlow } = await import("./rewind");
    const flow = new RewindFlow({ view: this.view, theme: this.theme, sessionId: () => this.sessionId, request: (m, p) => this.client!.request(m, p), requestRender: () => this.requestRender() });
    this.rewind = flow;
    if (which === "rewind") await flow.start();
    else await flow.undoRedo(which);
    this.requestRender();
  }

  private onCtrlC() {
    const { view, editor } = this;
    const now = Date.now();
    const again = now - this.lastCtrlC < DOUBLE_PRESS_MS;
    this.lastCtrlC = now;
    if (again) return void this.quit();
    if (view.turnRunning) {
      view.setNotice("cancelling… (Ctrl-C again within 2 s to exit)");
      view.cancelling = true;
      if (view.approval) view.clearApproval("denied");
      void this.client?.request("turn.cancel", { session_id: this.sessionId }).catch(() => {});
    } else if (!editor.isEmpty) {
      editor.clear();
      this.lastCtrlC = 0;
    } else view.setNotice("press Ctrl-C again to exit, or Ctrl-D");
    this.requestRender();
  }

  private async submit(text: string): Promise<void> {
    const { view, theme } = this;
    view.setNotice(undefined);
    if (this.store) this.promptHistory?.appendPromptHistory(this.store.home, text);
    const slash = parseSlash(text);
    if (slash && SLASH_COMMANDS.some((c) => c.name === slash.name)) return runSlashCommand(this.slashContext, slash.name, slash.arg);
    const own = slash && this.userCommands?.find(slash.name);
    if (own) return this.runUserCommand(own, slash.arg);
    if (slash && text.trim().split(/\s/)[0] === text.trim()) {
      // Enter on a filtered menu runs its highlighted (first) row: `/st` with /status the only match opens /status.
      const menu = completions(text.trim(), this.userCommands?.menu);
      if (menu.length) return this.submit(`/${menu[0]!.name}`);
      const near = didYouMean(slash.name, [...SLASH_COMMANDS.map((c) => c.name), ...Object.keys(SLASH_ALIASES), ...(this.userCommands?.files.map((c) => c.name) ?? [])]);
      view.say(`unknown command /${slash.name}${near ? `; did you mean /${near}?` : ""} (/help lists the commands)`, theme.yellow);
      return;
    }
    try {
      const images = imagePathsIn(text, this.opts.cwd, this.opts.env.HOME);
      text = await this.withMentionedFiles(text);
      let r: { queued: boolean };
      try {
        r = await this.client!.request("turn.start", { session_id: this.sessionId, prompt: text, ...(images.length ? { images } : {}) });
        if (images.length) view.say(`attached ${images.length === 1 ? "image" : `${images.length} images`}: ${images.map((p) => p.split("/").pop()).join(", ")}`, theme.dim);
      } catch (e) {
        if (!images.length) throw e;
        // The prompt still goes: only the image stays behind, and the person is told why.
        view.say(`image not attached: ${(e as Error).message}`, theme.yellow);
        r = await this.client!.request("turn.start", { session_id: this.sessionId, prompt: text });
      }
      if (r.queued) view.say(`queued: ${truncate(text.split("\n")[0]!, 60)}`, theme.dim);
    } catch (e) {
      view.say(`could not send: ${(e as Error).message}`, theme.red);
    }
    this.requestRender();
  }

  /** A command file: its prompt as a turn, its `model` for that turn only, its `allowed-tools` unasked in it. */
  private async runUserCommand(c: import("../command-files/index").CommandFile, args: string) {
    const { view, theme } = this;
    const before = this.model;
    try {
      if (c.model) await runSlashCommand(this.slashContext, "model", c.model);
      const r = await this.client!.request("turn.start", { session_id: this.sessionId, prompt: this.userCommands!.prompt(c, args) });
      this.userCommands!.started(c, r.turn_id);
      // session.configure acts from the next turn on: the command's turn keeps the model it started with.
      if (c.model && before && this.model !== before) {
        if (r.queued) view.say(`/${c.name} is queued; it runs on ${this.model}: /model ${before} switches back`, theme.dim);
        else await this.client!.request("session.configure", { session_id: this.sessionId, model: before }).then((x: { model: string; context_window?: number }) => ((this.model = x.model), (this.contextWindow = x.context_window)));
      }
    } catch (e) {
      view.say(`/${c.name}: ${(e as Error).message}`, theme.red);
    }
    this.requestRender();
  }

  /** The prompt with each `@file` it mentions attached (inlined when small), said in the conversation. */
  private async withMentionedFiles(text: string): Promise<string> {
    if (!/(?:^|\s)@\S/.test(text)) return text;
    this.mentions ??= await import("./file-mention");
    const { prompt, attached } = this.mentions.attachMentions(text, this.opts.cwd);
    if (attached.length) this.view.say(`attached ${attached.map((p) => `@${sanitize(p)}`).join(", ")}`, this.theme.dim);
    return prompt;
  }

  private async closeSession(announce = true) {
    const { view } = this;
    if (!this.sessionId || !this.client) return;
    const id = this.sessionId;
    if (announce && view.jobs.size) view.say(`stopping ${view.jobs.size} background job${view.jobs.size === 1 ? "" : "s"}…`, this.theme.yellow);
    this.requestRender();
    await this.client.request("session.close", { session_id: id }).catch(() => {});
    view.jobs.clear();
    this.sessionId = "";
  }

  private async quit() {
    if (this.exiting) return;
    const jobs = this.view.jobs.size;
    if (jobs) this.view.say(`exiting: stopping ${jobs} background job${jobs === 1 ? "" : "s"} and their processes…`, this.theme.yellow);
    this.render();
    await this.closeSession(false);
    await this.client?.closeAll().catch(() => {});
    this.finish(0);
  }

  private finish(code: number): Promise<number> {
    this.exiting = true;
    clearInterval(this.ticker);
    if (this.scheduled) clearTimeout(this.scheduled);
    const rest = this.view.takeCommitted();
    this.screen.release();
    if (rest.length) this.term.write(`${rest.join("\r\n")}\r\n`);
    this.term.restore();
    if (this.lastSessionId) this.term.write(`${this.theme.dim("resume this session with:")} scv --resume ${this.lastSessionId}\r\n`);
    this.resolveExit(code);
    return this.exited;
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
