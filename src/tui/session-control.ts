// The session open on screen: starting or resuming one (and what a resume shows of it), closing it, --continue,
// and the list of stored sessions /resume and --resume without an ID show (picker.ts draws it). It keeps what the
// status line and the slash commands read of the open session: its ID, model, context window and tools.
import type { SessionStore } from "../sessions/index";
import { storedWorkspace } from "../sessions/workspace";
import type { SessionScreen } from "./context";
import type { Key } from "./keys";
import { SessionPicker } from "./picker";

export interface SessionControlContext extends Omit<SessionScreen, "sessionId"> {
  cwd: string;
  /** Approve every tool call unasked (--yes), and the reasoning effort of a new session (--effort). */
  autoApprove?: boolean;
  effort?: string;
  /** How sessions ask now (Shift-Tab, /mode). */
  approvalMode(): "ask" | "accept-edits";
  /** Whether the server is loaded: before it is, nothing opens or closes. */
  connected(): boolean;
  store(): SessionStore | undefined;
}

/** The stored sessions from the index (loaded with the server, after the first frame). */
async function listStored(store: SessionStore, opts: { workspace: string; limit: number }) {
  return (await import("../ledger/index")).listSessions(store, opts);
}

export class SessionControl {
  /** The open session's ID; "" while none is. */
  id = "";
  /** The session open last, named on the way out so it can be resumed. */
  lastId = "";
  model = "";
  contextWindow: number | undefined;
  tools: string[] = [];
  /** The stored sessions to pick from, while the list is open. */
  picker: SessionPicker | undefined;

  constructor(private readonly ctx: SessionControlContext) {}

  /** Starts a new session, or resumes `resume` with its turns replayed on screen. */
  async start(resume?: string, modelName?: string): Promise<void> {
    const { view, theme } = this.ctx;
    if (!this.ctx.connected()) return;
    const model_ = modelName ? { model: modelName } : {};
    const mode = this.ctx.approvalMode();
    const approve = { ...(this.ctx.autoApprove ? { auto_approve: true } : {}), ...(mode !== "ask" ? { approval_mode: mode } : {}) };
    const effort = this.ctx.effort ? { reasoning_effort: this.ctx.effort } : {};
    const started = resume
      ? await this.ctx.request("session.resume", { session_id: resume, ...model_, ...approve, questions: true })
      : await this.ctx.request("session.start", { cwd: this.ctx.cwd, ...model_, ...approve, ...effort, questions: true });
    this.id = started.session_id;
    this.lastId = this.id;
    this.model = started.model;
    this.contextWindow = started.context_window;
    this.tools = started.tools ?? [];
    for (const turn of started.turns ?? []) view.replay(this.id, turn);
    view.plan = started.plan ?? [];
    for (const job of started.jobs ?? []) if (job.status === "interrupted") view.say(`job ${job.job} (agent ${job.agent}) was interrupted when its process ended`, theme.yellow);
    for (const w of [...(started.warnings ?? []), ...(started.notices ?? [])]) view.say(`note: ${w}`, theme.yellow);
    view.say(`${resume ? "resumed" : "session"} ${this.id} in ${started.workspace} · /help for keys and commands`, theme.dim);
  }

  /** Closes the open session (its background jobs stop with it; `announce` says so first). */
  async close(announce = true): Promise<void> {
    const { view } = this.ctx;
    if (!this.id || !this.ctx.connected()) return;
    const id = this.id;
    if (announce && view.jobs.size) view.say(`stopping ${view.jobs.size} background job${view.jobs.size === 1 ? "" : "s"}…`, this.ctx.theme.yellow);
    this.ctx.requestRender();
    await this.ctx.request("session.close", { session_id: id }).catch(() => {});
    view.jobs.clear();
    this.id = "";
  }

  /** --continue: the newest session of this workspace, or a fresh one when there is none. */
  async continueNewest(): Promise<void> {
    const store = this.ctx.store();
    const newest = store && (await listStored(store, { workspace: storedWorkspace(this.ctx.cwd), limit: 1 }))[0];
    if (!newest) this.ctx.view.say("no earlier session here to continue; starting a new one", this.ctx.theme.dim);
    await this.start(newest?.id);
  }

  /** Shows this workspace's stored sessions to pick from (Up/Down, Enter, Esc). */
  async openPicker(startFresh: boolean): Promise<void> {
    const store = this.ctx.store();
    const items = (store ? await listStored(store, { workspace: storedWorkspace(this.ctx.cwd), limit: 20 }) : []).filter((s) => s.id !== this.id);
    if (!items.length) {
      this.ctx.view.say("no stored sessions of this workspace to resume (`scv sessions list --all` shows every workspace's)", this.ctx.theme.dim);
      if (startFresh) await this.start();
      return;
    }
    this.picker = new SessionPicker(items, startFresh);
  }

  /** Keys while the list is open: Enter resumes the chosen session (or says why not), Esc leaves. */
  async pickerKey(key: Key): Promise<void> {
    const p = this.picker!;
    const choice = p.key(key);
    if (choice?.kind === "cancel") {
      this.picker = undefined;
      if (p.startFresh || !this.id) await this.start();
    } else if (choice?.kind === "open") {
      this.picker = undefined;
      await this.close();
      try {
        await this.start(choice.id);
      } catch (e) {
        this.ctx.view.say(`could not resume: ${(e as Error).message}`, this.ctx.theme.red);
        if (!this.id) await this.start();
      }
    }
    this.ctx.requestRender();
  }
}
