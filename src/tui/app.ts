// `scv` in a terminal: a conversation you can stay in. A client of the same protocol the stdio server speaks,
// on an in-process server as `scv exec` uses. The prompt is drawn before the server modules load, so the
// screen answers at once; rendering runs on a frame timer, decoupled from the model stream, so typing never
// waits for a slow model. TuiApp coordinates: each view that takes keys is a module of its own (the approval
// card's answers in approval-keys.ts, /rewind in rewind.ts, the model's question in question-keys.ts, /model in
// model-picker.ts, Ctrl-R in prompt-history.ts, `@` in mentions.ts, the session list in session-control.ts);
// what Enter sends is submit.ts', and what loads after the first frame connect.ts'.
import { completions } from "./commands";
import { type Client, loadServer } from "./connect";
import { PromptEditor } from "./editor";
import { createKeyDecoder, type Key } from "./keys";
import { Screen } from "./screen";
import { type Style, styleFor } from "../terminal/style";
import { openTerminal } from "./terminal";
import type { SlashContext } from "./run-command";
import { contextShare, formatTokens, truncate } from "./text";
import { ConversationView } from "./view";
import { ApprovalAnswers } from "./approval-keys";
import type { SessionScreen } from "./context";
import { Mentions } from "./mentions";
import { OpenQuestion } from "./question-keys";
import { SessionControl } from "./session-control";
import { submit } from "./submit";

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

const FRAME_MS = 33;
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
  /** What the parts that work on the open session are handed (src/tui/context.ts). */
  private readonly screenContext: SessionScreen;
  private readonly session: SessionControl;
  private readonly approvals: ApprovalAnswers;
  private readonly mentions: Mentions;
  /** The `/model` picker while it is open. */
  private modelPicker: import("./model-picker").OpenModelPicker | undefined;
  /** /rewind, /undo, /redo while they show a list or ask (src/tui/rewind.ts, loaded at first use). */
  private rewind: import("./rewind").RewindFlow | undefined;
  private lastEscape = 0;
  /** The prompt history across sessions (loaded with the server) and, while Ctrl-R is open, its search. */
  private promptHistory: typeof import("./prompt-history") | undefined;
  private historySearch: import("./prompt-history").HistorySearch | undefined;
  private config: import("../config/schema").Config | undefined;
  /** Offers a card nobody answers here to the owner where they are, through the daemon ([notify], issue 54). */
  private away: import("../daemon/away-link").AwayLink | undefined;
  /** What the open session spent (own model and delegated agents), from the usage ledger. */
  private spend: import("./spend").Spend | undefined;
  private spendText: ((s: import("./spend").Spend) => string) | undefined;
  /** The person's command files (~/.scv/commands, a trusted project's .scv/commands), loaded with the server. */
  private userCommands: import("./user-commands").UserCommands | undefined;
  private status = "starting…";
  private frame = 0;
  private lastCtrlC = 0;
  private exiting = false;
  /** How sessions ask (Shift-Tab, /mode): `accept-edits` runs file edits inside the workspace unasked. */
  private approvalMode: ApprovalMode;
  /** The model's open question (clarify), shown as a card above the prompt. */
  private readonly question: OpenQuestion;
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
    const { view, theme } = this;
    const requestRender = () => this.requestRender();
    // Every request waits for the client: keys are read only once it is there (run()).
    const request = <T>(method: string, params: unknown) => this.client!.request<T>(method, params);
    this.screenContext = { view, theme, sessionId: () => this.session.id, request, requestRender };
    this.session = new SessionControl({ view, theme, request, requestRender, cwd: opts.cwd, autoApprove: opts.autoApprove, effort: opts.effort, approvalMode: () => this.approvalMode, connected: () => !!this.client, store: () => this.store });
    this.approvals = new ApprovalAnswers({ ...this.screenContext, away: () => this.away });
    this.question = new OpenQuestion({ ...this.screenContext, away: () => this.away, cwd: opts.cwd });
    this.mentions = new Mentions({ view, theme, cwd: opts.cwd, editor: this.editor, requestRender });
    this.slashContext = this.slashCommands();
  }

  /** What the slash commands (run-command.ts) may see and do. */
  private slashCommands(): SlashContext {
    const { opts, session } = this;
    return {
      view: this.view,
      theme: this.theme,
      cwd: opts.cwd,
      env: opts.env,
      session: () => ({ id: session.id, model: session.model, tools: session.tools, contextWindow: session.contextWindow }),
      switched: (next) => {
        session.model = next.model;
        session.contextWindow = next.contextWindow;
      },
      usage: async () =>
        this.store && this.config && session.id ? (await import("./spend")).usageLines(this.store.home, this.config, session.id) : ["no session is open"],
      request: this.screenContext.request,
      startSession: (resume, modelName) => session.start(resume, modelName),
      closeSession: () => session.close(),
      openPicker: (startFresh) => session.openPicker(startFresh),
      rewind: (which) => this.openRewind(which),
      pickModel: async (picker) => {
        const { OpenModelPicker } = await import("./model-picker");
        this.modelPicker = new OpenModelPicker(picker);
        this.requestRender();
        return this.modelPicker.chosen;
      },
      mode: () => this.approvalMode,
      setMode: (mode) => this.setApprovalMode(mode),
      ownCommands: () => this.userCommands?.menu ?? [],
      quit: () => this.quit(),
      requestRender: this.screenContext.requestRender,
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
    const live = [...view.live(this.frame), ...(this.session.picker?.lines(theme, width) ?? []), ...(this.modelPicker?.picker.lines(theme, width) ?? []), ...(this.rewind?.lines(width) ?? []), ...this.question.lines(theme, width), ...(this.historySearch?.lines(theme, width) ?? []), ...this.mentions.lines(theme, width)];
    const prompt = view.approval ? theme.dim("› ") : theme.cyan("› ");
    const ed = editor.render(width, prompt);
    // The first row is the highlighted one: Tab completes it, Enter runs it.
    const hints = completions(editor.text, this.userCommands?.menu).map((c, i) => truncate(`${i === 0 ? theme.cyan("›") : " "} ${theme.bold(`/${c.name}`)}${c.args ? ` ${c.args}` : ""}  ${theme.dim(c.description)}`, width));
    const statusLine = truncate(theme.dim(this.statusText()), width);
    const lines = [...live, "", ...ed.lines, ...hints, statusLine];
    const top = live.length + 1;
    this.screen.draw(view.takeCommitted(), { lines, cursorRow: top + ed.cursorRow, cursorCol: ed.cursorCol });
  }

  private requestRender() {
    this.scheduled ??= setTimeout(() => this.render(), FRAME_MS);
  }

  private statusText(): string {
    const { session } = this;
    const parts = [session.model || "…", session.id || this.status];
    if (!session.id) return `  ${this.status}`;
    const u = this.view.lastUsage;
    if (u) parts.push(`context ${formatTokens(u.input_tokens)}${session.contextWindow ? ` (${contextShare(u.input_tokens, session.contextWindow)})` : ""}`);
    if (this.spend && this.spend.tokens > 0 && this.spendText) parts.push(this.spendText(this.spend));
    if (this.approvalMode === "accept-edits") parts.push("accept edits on (Shift-Tab to turn off)");
    if (this.view.jobs.size) parts.push(`jobs: ${[...this.view.jobs].map(([job, line]) => (line === "running" ? job : `${job} (${line})`)).join(", ")}`);
    return `  ${parts.join(" · ")}`;
  }

  /** What the session spent so far, for the status line, read again after each turn. */
  private async refreshSpend() {
    if (!this.store || !this.config || !this.session.id) return;
    const m = await import("./spend");
    this.spendText = m.describeSpend;
    try {
      this.spend = await m.sessionSpend(this.store.home, this.config, this.session.id);
    } catch {
      return; // the status line goes without; the turn is unaffected
    }
    this.requestRender();
  }

  /** Loads the server (loadServer in connect.ts), then opens the first session (or the picker) and sends `scv "…"`'s prompt. */
  private async connect() {
    const { opts, view, theme } = this;
    const c = await loadServer({ cwd: opts.cwd, env: opts.env, view, theme, editor: this.editor, requestRender: () => this.requestRender(), onNotification: (...n) => this.onNotification(...n), answeredAway: (id, a) => void this.answeredAway(id, a) });
    ({ client: this.client, store: this.store, config: this.config, userCommands: this.userCommands, promptHistory: this.promptHistory, away: this.away } = c);
    if (opts.resume === "") await this.session.openPicker(true);
    else if (opts.resume === undefined && opts.continueNewest) await this.session.continueNewest();
    else await this.session.start(opts.resume);
    if (opts.prompt && this.session.id) void this.submit(opts.prompt);
    this.requestRender();
  }

  /** A notification from the server: the open session's go to the view, and to what waits on them. */
  private onNotification(...notification: import("../protocol/schema").NotificationArgs) {
    const { view } = this;
    const [method, p] = notification;
    if (p.session_id && p.session_id !== this.session.id) return;
    view.apply(...notification);
    if (method === "turn.ended") {
      void this.refreshSpend();
      this.userCommands?.ended(p.turn_id);
      this.away?.answeredHere("the terminal (its turn ended)");
      this.away?.turnEnded(p, this.opts.cwd);
    }
    if (method === "approval.requested" && view.approval) this.approvals.requested(p, !!this.userCommands?.allows(p.turn_id, view.approval.tool, view.approval.summary));
    if (method === "clarify.requested") void this.question.requested(p);
    if (method === "clarify.answered") this.question.settled(p.clarify_id);
    if (method === "turn.started") this.away?.turnStarted();
    this.requestRender();
  }

  private onKey(key: Key) {
    this.away?.key();
    const { view, editor } = this;
    if (this.historySearch) return this.onSearchKey(key);
    if (key.kind === "ctrlC" && this.modelPicker) return this.onModelPickerKey(key);
    if (key.kind === "ctrlC") return void this.onCtrlC();
    if (this.session.picker) return void this.session.pickerKey(key);
    if (this.question.waiting) return void this.question.key(key); // the question holds the keyboard until answered or skipped
    if (this.rewind?.open) return this.rewind.key(key);
    if (view.approval) return this.approvals.key(key); // the card holds the keyboard until it is answered
    if (this.modelPicker) return this.onModelPickerKey(key);
    if (this.mentions.takes(key)) return this.mentions.key(key);
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
    if (key.kind === "escape" && editor.isEmpty && !view.turnRunning && !this.mentions.open) {
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
    void this.mentions.follow();
  }

  /** Keys while the Ctrl-R search is open: Enter puts its match in the editor. */
  private onSearchKey(key: Key) {
    const end = this.historySearch!.key(key);
    if (!end) return;
    this.historySearch = undefined;
    if (end.kind === "take") this.editor.setText(end.text);
  }

  private onModelPickerKey(key: Key) {
    if (this.modelPicker!.key(key)) this.modelPicker = undefined;
  }

  /** Shift-Tab and /mode: how this session (and the next ones of this run) ask. */
  private async setApprovalMode(mode: ApprovalMode) {
    this.approvalMode = mode;
    this.view.say(mode === "accept-edits" ? "accept edits on: edit and write inside the workspace run unasked (not secret-like paths; network and MCP still ask; commands run unasked inside the sandbox, and one that needs more asks) · Shift-Tab turns it off" : "accept edits off: file changes ask first; commands run unasked inside the sandbox, and one that needs more asks", this.theme.dim);
    this.requestRender();
    if (this.session.id && this.client) await this.client.request("session.configure", { session_id: this.session.id, approval_mode: mode }).catch((e) => this.view.say(`could not switch: ${(e as Error).message}`, this.theme.red));
    this.requestRender();
  }

  /** The owner answered this screen's card or question elsewhere (their chat, the web page). */
  private answeredAway(id: string, a: import("../daemon/away-link").RemoteAnswer) {
    return a.text === undefined ? this.approvals.answeredAway(id, a) : this.question.answeredAway(id, { ...a, text: a.text });
  }

  private async openRewind(which: "rewind" | "undo" | "redo") {
    if (!this.session.id || !this.client) return this.view.say("no session is open", this.theme.dim);
    if (this.view.turnRunning) return this.view.say("a turn is running: wait for it or cancel it (Ctrl-C) before rewinding", this.theme.yellow);
    const { RewindFlow } = await import("./rewind");
    const flow = new RewindFlow(this.screenContext);
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
      void this.client?.request("turn.cancel", { session_id: this.session.id }).catch(() => {});
    } else if (!editor.isEmpty) {
      editor.clear();
      this.lastCtrlC = 0;
    } else view.setNotice("press Ctrl-C again to exit, or Ctrl-D");
    this.requestRender();
  }

  /** Enter on the prompt (submit.ts). */
  private submit(text: string): Promise<void> {
    return submit(
      {
        ...this.screenContext,
        cwd: this.opts.cwd,
        home: this.opts.env.HOME,
        slash: this.slashContext,
        session: this.session,
        userCommands: () => this.userCommands,
        remember: (t) => this.store && this.promptHistory?.appendPromptHistory(this.store.home, t),
        withMentionedFiles: (t) => this.mentions.attach(t),
      },
      text,
    );
  }

  private async quit() {
    if (this.exiting) return;
    const jobs = this.view.jobs.size;
    if (jobs) this.view.say(`exiting: stopping ${jobs} background job${jobs === 1 ? "" : "s"} and their processes…`, this.theme.yellow);
    this.render();
    await this.session.close(false);
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
    if (this.session.lastId) this.term.write(`${this.theme.dim("resume this session with:")} scv --resume ${this.session.lastId}\r\n`);
    this.resolveExit(code);
    return this.exited;
  }
}
