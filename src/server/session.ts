// A session: one workspace, its tools, history and turn queue. Turns run one at a time; user prompts queue
// behind the running turn, and server-started turns (background reports) run only when no user turn waits.
import { randomHex } from "../digest";
import { createApprovalGate, type ApprovalGate } from "../approval/gate";
import type { Origin } from "../protocol/schema";
import type { ImageRef } from "../provider/images";
import { type HistoryItem, type ModelClient, type ReasoningOptions, zeroUsage } from "../provider/types";
import type { LoadedSession } from "../sessions/index";
import { handleNumber } from "../sessions/load";
import { checkRewind } from "../sessions/rewind";
import type { IdleTurn, SessionScope } from "../scope";
import type { ToolRegistry } from "../tools/tool";
import { OpenQuestions } from "./questions";
import { type CompactionReason, type CompactResult, type ContextState, estimateTextTokens } from "./compaction";
import { compactSession } from "./session-compact";
import type { SystemPrompt } from "./system-prompt";
import { type Emit, noticeAll, runOwnCall, runTurn, type SideStep, type TurnDeps, type TurnOutcome } from "./turn";
import { type SessionHooks, sessionHooks } from "./session-hooks";
import { GoalDriver } from "./goal-driver";
import type { GoalRequest } from "./goal";
import { goalNote } from "./goal";
import { SessionCheckpoints } from "../checkpoints/index";
import { currentPlan } from "../plan/plan";
import { type FollowedTask, followTask, pinnedTask } from "./task-pin";
import { type ApprovalMode, SessionApprovals } from "./session-approvals";

interface QueuedTurn {
  turnId: string;
  prompt: string;
  origin: Origin;
  images?: ImageRef[];
  /** Added to the prompt the model reads (a goal's instructions); the record keeps the person's words. */
  note?: string;
}

export interface SessionOptions {
  scope: Omit<SessionScope, "onClose" | "turns" | "decideUnattended" | "notify">;
  buildTools(scope: SessionScope): ToolRegistry;
  /** The provider profile's name (never its key). */
  provider: string;
  model: ModelClient;
  modelName: string;
  reasoning?: ReasoningOptions;
  /** The model's context window (tokens) and the fraction of it at which history is compacted. */
  context: { window: number; compactAt: number };
  hostedWebSearch(scope: SessionScope): boolean;
  /** Built at the start and again after each compaction. */
  systemPrompt(scope: SessionScope, tools: ToolRegistry): SystemPrompt;
  /** Added to the summariser's instructions (what stays in the prompt anyway: the owner's memory). */
  compactionNote?(scope: SessionScope): string | undefined;
  /** The step the model gets before a threshold compaction, if any (saving to memory). */
  beforeCompaction?(scope: SessionScope, tools: ToolRegistry): SideStep | undefined;
  autoApprove: boolean;
  /** The client puts the model's questions (`clarify`) to a person (session.start `questions`). */
  questions?: boolean;
  emit: Emit;
  /** A stored session being resumed: its history and turn numbering continue. */
  restored?: LoadedSession;
}

export class Session {
  readonly scope: SessionScope;
  readonly tools: ToolRegistry;
  private readonly history: HistoryItem[];
  private readonly context: ContextState;
  private readonly queue: QueuedTurn[] = [];
  private running?: { turnId: string; abort: AbortController; done: Promise<void> };
  private readonly approvals: SessionApprovals;
  private readonly closeHandlers: (() => void | Promise<void>)[] = [];
  private readonly idleSources: (() => IdleTurn | undefined)[] = [];
  private readonly gate: ApprovalGate;
  private readonly questions: OpenQuestions;
  private systemPrompt: string;
  /** Problems with the files the prompt was made from when the session started (memory over its cap…). */
  readonly notices: readonly string[];
  /** Notices the client was given (at the start or after a compaction), so each is said once. */
  private readonly noticesSaid = new Set<string>();
  private readonly beforeCompaction: SideStep | undefined;
  private readonly hostedWebSearch: boolean;
  private turnCounter = 0;
  private closed = false;
  /** The turn whose items are being added to history, for the session record. */
  private recordingTurn: string | undefined;
  /** The user's hooks, when any are configured (src/hooks). */
  private readonly hooks: SessionHooks | undefined;
  /** What SessionStart hooks added for the model, once they ran (before the first turn): kept in the prompt. */
  private hookContext: string | undefined;
  /** The goal the session works towards, if any (turn.start `goal`). */
  readonly goals: GoalDriver;
  /** The person's prompts and the files changed so far: every compaction's summary carries them (task-pin.ts). */
  private readonly task: FollowedTask = { prompts: [], files: new Set<string>() };

  private readonly resumed: boolean;

  constructor(private readonly opts: SessionOptions) {
    this.context = { ...opts.context };
    this.approvals = new SessionApprovals({
      scope: opts.scope,
      emit: (method, params) => this.opts.emit(method, params),
      hooks: () => this.hooks,
      running: () => this.running,
    });
    this.gate = createApprovalGate({
      policy: opts.scope.config.tools.approval_policy,
      perTool: opts.scope.config.tools.approval,
      autoApprove: opts.autoApprove,
      ask: (request) => this.approvals.ask(request),
    });
    this.questions = new OpenQuestions(opts.emit, () => !!this.opts.questions, () => this.scope.config.tools.clarify_timeout_seconds, (target, question) => {
      void this.hooks?.run("Notification", { message: `SCV asks you: ${question}`, notification_type: "elicitation_dialog" }, { turnId: target.turnId, signal: target.signal });
    });
    this.scope = {
      ...opts.scope,
      onClose: (fn) => void this.closeHandlers.push(fn),
      turns: {
        addIdleSource: (source) => void this.idleSources.push(source),
        wake: () => this.pump(),
        busy: () => !!this.running || this.queue.length > 0,
      },
      decideUnattended: (risk, about) => {
        const decision = this.gate.decideUnattended(risk, about?.tool);
        if (!decision.approved && about) {
          this.opts.emit("approval.denied_unattended", { session_id: this.id, ...(about.job ? { job: about.job } : {}), tool: about.tool, risk, summary: about.summary, reason: decision.reason });
        }
        return decision;
      },
      notify: (method, params) => this.opts.emit(method, params),
    };
    this.history = [...((opts.restored?.history ?? []) as HistoryItem[])];
    for (const t of opts.restored?.turns ?? []) this.turnCounter = Math.max(this.turnCounter, handleNumber(t.turn_id, "t"));
    const recorder = opts.scope.journal?.recorder;
    if (recorder) {
      // The turn loop only ever appends to history, so recording each push stores every item the moment the
      // model's context gains it (a compaction records itself through recorder.compacted).
      const history = this.history;
      history.push = (...items: HistoryItem[]) => {
        for (const item of items) recorder.append({ type: "item", ...(this.recordingTurn ? { turn: this.recordingTurn } : {}), item: item as unknown as Record<string, unknown> });
        return Array.prototype.push.apply(history, items);
      };
    }
    this.hooks = sessionHooks(this.scope, opts.emit, () => this.running?.turnId || undefined);
    this.goals = this.goalDriver();
    this.opts.emit = followTask(this.task, this.history, opts.restored, opts.emit);
    const open = opts.restored?.goal;
    if (open) {
      const attempts = (opts.restored?.turns ?? []).filter((t) => handleNumber(t.turn_id, "t") >= handleNumber(open.turn, "t")).length;
      this.goals.begin({ check: open.check }, open.turn, { attempts, budget: open.budget });
    }
    // The loaded record (every prompt and reply again) is not kept for the session's life: only whether it resumed.
    this.resumed = !!opts.restored;
    this.opts.restored = undefined;
    this.tools = opts.buildTools(this.scope);
    const prompt = opts.systemPrompt(this.scope, this.tools);
    this.systemPrompt = prompt.text;
    this.notices = prompt.notices;
    for (const n of prompt.notices) this.noticesSaid.add(n);
    this.beforeCompaction = opts.beforeCompaction?.(this.scope, this.tools);
    this.hostedWebSearch = opts.hostedWebSearch(this.scope);
  }

  get id() {
    return this.scope.sessionId;
  }

  /** The provider profile and model the next turn uses. */
  get settings(): { provider: string; model: string; reasoningEffort?: string } {
    const effort = this.opts.reasoning?.effort;
    return { provider: this.opts.provider, model: this.opts.modelName, ...(effort ? { reasoningEffort: effort } : {}) };
  }

  /** Which APIs' reasoning the history holds: OpenAI encrypted reasoning items, Anthropic thinking blocks. */
  get reasoningHeld(): { openai: boolean; anthropic: boolean } {
    const held = { openai: false, anthropic: false };
    for (const item of this.history) if (item.role === "reasoning") held[item.origin === "anthropic" ? "anthropic" : "openai"] = true;
    return held;
  }

  /**
   * Switches the model, provider profile or reasoning effort from the next turn on; a running turn finishes on
   * what it started with. The history is kept as it is and recorded, so a resume continues on the new settings.
   */
  configure(next: Pick<SessionOptions, "provider" | "model" | "modelName" | "reasoning" | "context"> & { images: SessionScope["images"] }): void {
    this.opts.provider = next.provider;
    this.opts.model = next.model;
    this.opts.modelName = next.modelName;
    if (next.reasoning) this.opts.reasoning = next.reasoning;
    else delete this.opts.reasoning;
    this.context.window = next.context.window;
    this.context.compactAt = next.context.compactAt;
    this.context.last = undefined;
    (this.scope as { images: SessionScope["images"] }).images = next.images;
    const effort = next.reasoning?.effort;
    this.scope.journal?.recorder.append({ type: "configured", provider: next.provider, model: next.modelName, ...(effort ? { reasoning_effort: effort } : {}) });
  }

  /**
   * Rewinds the conversation to the end of `turn` (`t0`: before the first): a `rewound` record is appended (the
   * session file stays append-only) and the history is read back from the file, so this session and a later
   * resume both continue without the later turns. Refused while a turn runs. A compaction that summarised a
   * rewound turn (in a turn or between turns) is undone with it: its summary leaves, the items it replaced come back.
   */
  rewindConversation(turn: string, opts: { check?: boolean } = {}): { dropped: number } {
    const journal = this.scope.journal;
    if (!journal) throw new Error("this session is not stored, so its conversation cannot be rewound");
    if (this.running || this.queue.length) throw new Error("a turn is running; wait for it to end or cancel it (Ctrl-C) first");
    const { dropped } = checkRewind(journal.store.load(this.id), turn);
    if (opts.check) return { dropped };
    journal.recorder.append({ type: "rewound", turn });
    const after = journal.store.load(this.id);
    this.history.length = 0;
    Array.prototype.push.apply(this.history, after.history as HistoryItem[]); // already recorded: not through the recording push
    this.context.last = undefined;
    return { dropped };
  }

  /** The model's context window in tokens, as this session counts it. */
  get contextWindow(): number {
    return this.context.window;
  }

  startTurn(prompt: string, images?: ImageRef[], goal?: GoalRequest): { turnId: string; queued: boolean } {
    if (goal && this.goals.active) throw new Error(`a goal is already running (check \`${this.goals.active.check}\`); stop it first (turn.cancel, Ctrl-C or /stop)`);
    const turnId = this.nextTurnId();
    const queued = !!this.running || this.queue.length > 0;
    const turn: QueuedTurn = { turnId, prompt, origin: { kind: "user" }, ...(images?.length ? { images } : {}), ...(goal ? { note: goalNote(goal.check) } : {}) };
    this.recordTurn(turn);
    this.task.prompts.push(prompt);
    if (goal) this.goals.begin(goal, turnId);
    this.queue.push(turn);
    this.pump();
    return { turnId, queued };
  }

  /**
   * Compacts the history on request, once no turn runs (a running turn finishes first; queued turns wait).
   * Not ok when there was too little to summarise or the model could not write the summary.
   */
  async compactNow(): Promise<CompactResult> {
    while (this.running) await this.running.done;
    if (this.closed) return { ok: false, message: "the session is closed" };
    const abort = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    this.running = { turnId: "", abort, done }; // holds back queued turns while the summary is written
    try {
      const specs = this.tools.list().map((t) => ({ name: t.name, description: t.description, parameters: t.jsonSchema }));
      const fixed = estimateTextTokens(this.systemPrompt + JSON.stringify(specs));
      return await this.compact("request", undefined, this.history.length, fixed, abort.signal);
    } finally {
      this.running = undefined;
      finish();
      queueMicrotask(() => this.pump());
    }
  }

  /** The session's one compaction path (session-compact.ts), with what the summary must carry. */
  private async compact(reason: CompactionReason, turnId: string | undefined, turnStart: number, fixedTokens: number, signal: AbortSignal) {
    const note = this.opts.compactionNote?.(this.scope);
    const goal = this.goals.active;
    const pinned = pinnedTask({
      ...this.task,
      plan: currentPlan(this.scope.services),
      ...(goal ? { goal: { check: goal.check, attempt: goal.attempt, maxAttempts: goal.budget.max_attempts } } : {}),
    });
    return compactSession(
      {
        scope: this.scope,
        history: this.history,
        context: this.context,
        model: this.opts.model,
        modelName: this.opts.modelName,
        ...(note ? { note } : {}),
        ...(pinned ? { pinned } : {}),
        ...(this.hooks ? { hooks: this.hooks } : {}),
        emit: this.opts.emit,
        renewPrompt: (at) => this.renewSystemPrompt(at),
      },
      { reason, turnId, turnStart, fixedTokens, signal },
    );
  }

  /**
   * After a compaction: the prompt is made again, so what was saved to memory since the session started is in the
   * instructions from now on (the summary need not carry it). New problems with its files are said in the turn.
   */
  private renewSystemPrompt(turnId: string | undefined) {
    const prompt = this.opts.systemPrompt(this.scope, this.tools);
    this.systemPrompt = prompt.text;
    for (const message of prompt.notices) {
      if (this.noticesSaid.has(message) || !turnId) continue;
      this.noticesSaid.add(message);
      this.opts.emit("model.notice", { session_id: this.id, turn_id: turnId, message });
    }
  }

  /** Cancels the running turn (or the named one) and drops queued user prompts. */
  cancel(turnId?: string): boolean {
    let hit = false;
    if (!turnId || this.running?.turnId === turnId) this.goals.cancelled();
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const q = this.queue[i]!;
      if (turnId && q.turnId !== turnId) continue;
      this.queue.splice(i, 1);
      this.endWithoutRunning(q, "cancelled");
      hit = true;
    }
    if (this.running && (!turnId || this.running.turnId === turnId)) {
      this.running.abort.abort();
      hit = true;
    }
    return hit;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.goals.close(); // before cancel: a closed session's goal stays open in its record, for a resume
    this.cancel();
    await this.running?.done;
    await this.hooks?.run("SessionEnd", { reason: "other" });
    for (const fn of this.closeHandlers.splice(0).reverse()) {
      try {
        await fn();
      } catch {
        // one service failing to clean up must not stop the others
      }
    }
    this.scope.journal?.recorder.close();
    this.scope.services.checkpoints?.close?.();
    this.scope.usage?.written();
  }

  /** How the session asks: `accept-edits` runs file edits inside the workspace unasked. */
  get approvalMode(): ApprovalMode {
    return this.approvals.mode;
  }

  set approvalMode(mode: ApprovalMode) {
    this.approvals.mode = mode;
  }

  /** approval.resolve: undefined when no approval is waiting under that ID (session-approvals.ts). */
  resolveApproval(...answer: Parameters<SessionApprovals["resolve"]>): ReturnType<SessionApprovals["resolve"]> {
    return this.approvals.resolve(...answer);
  }

  /** clarify.answer: false when no such question is open. */
  answerQuestion(clarifyId: string, answer: string | undefined): boolean {
    return this.questions.answer(clarifyId, answer);
  }

  private recordTurn(turn: QueuedTurn): void {
    this.scope.journal?.recorder.append({ type: "turn", turn: turn.turnId, prompt: turn.prompt, origin: turn.origin });
  }

  private recordEnd(turnId: string, outcome: TurnOutcome): void {
    this.scope.journal?.recorder.append({ type: "turn_ended", turn: turnId, ...outcome });
    this.scope.usage?.written();
  }

  private nextTurnId() {
    return `t${++this.turnCounter}`;
  }

  private endWithoutRunning(q: QueuedTurn, status: TurnOutcome["status"]) {
    const ids = { session_id: this.id, turn_id: q.turnId };
    this.opts.emit("turn.started", { ...ids, origin: q.origin, prompt: q.prompt });
    const outcome: TurnOutcome = { status, reply: "", usage: zeroUsage() };
    this.recordEnd(q.turnId, outcome);
    this.opts.emit("turn.ended", { ...ids, ...outcome, origin: q.origin });
  }

  /** Starts the next turn when idle: queued user prompts first, then a server-started turn if any source has one. */
  private pump() {
    if (this.running || this.closed) return;
    let next = this.queue.shift();
    if (!next) {
      for (const source of this.idleSources) {
        const idle = source();
        if (idle) {
          next = { turnId: this.nextTurnId(), prompt: idle.prompt, origin: idle.origin };
          this.recordTurn(next);
          break;
        }
      }
    }
    if (!next) return;
    const turn = next;
    const abort = new AbortController();
    const done = this.execute(turn, abort.signal).finally(() => {
      this.running = undefined;
      queueMicrotask(() => this.pump());
    });
    this.running = { turnId: turn.turnId, abort, done };
  }

  private async execute(turn: QueuedTurn, signal: AbortSignal): Promise<void> {
    const ids = { session_id: this.id, turn_id: turn.turnId };
    this.opts.emit("turn.started", { ...ids, origin: turn.origin, prompt: turn.prompt });
    this.recordingTurn = turn.turnId;
    this.scope.usage?.setTurn({ id: turn.turnId, kind: turn.origin.kind });
    let outcome: TurnOutcome;
    let check: Awaited<ReturnType<GoalDriver["check"]>>;
    this.goals.turnStarting();
    const deps = this.turnDeps(turn);
    try {
      if (this.hookContext === undefined && this.hooks) {
        const started = await this.hooks.run("SessionStart", { source: this.resumed ? "resume" : "startup" }, { turnId: turn.turnId, signal });
        this.hookContext = started.context;
      }
      outcome = await runTurn(deps, turn.turnId, turn.note ? `${turn.prompt}\n\n${turn.note}` : turn.prompt, signal, turn.images);
      check = await this.goals.check(turn.turnId, outcome, signal, (command, timeout) => {
        const call = { id: `goal-check-${turn.turnId}`, name: "bash", arguments: JSON.stringify({ command, timeout_seconds: timeout }) };
        return runOwnCall(deps, turn.turnId, call, signal);
      });
    } catch (e) {
      // The loop is written not to throw; if it does, the turn still ends with a reason.
      outcome = {
        status: signal.aborted ? "cancelled" : "failed",
        reply: "",
        usage: zeroUsage(),
        error: { class: "internal", message: (e as Error).message },
      };
    }
    noticeAll({ emit: this.opts.emit, scope: this.scope }, turn.turnId, this.scope.services.checkpoints?.turnEnded(turn.turnId));
    this.recordingTurn = undefined;
    this.scope.usage?.setTurn(undefined);
    this.recordEnd(turn.turnId, outcome);
    this.opts.emit("turn.ended", { ...ids, ...outcome, origin: turn.origin });
    this.goals.turnEnded(turn.turnId, outcome, check);
  }

  private turnDeps(turn: QueuedTurn): TurnDeps {
    return {
      scope: this.scope,
      tools: this.tools,
      model: this.opts.model,
      modelName: this.opts.modelName,
      hostedWebSearch: this.hostedWebSearch,
      ...(this.opts.reasoning ? { reasoning: this.opts.reasoning } : {}),
      systemPrompt: () => (this.hookContext ? `${this.systemPrompt}\n\n<hook-context event="SessionStart">\n${this.hookContext}\n</hook-context>` : this.systemPrompt),
      ...(this.hooks ? { hooks: this.hooks, promptFromPerson: turn.origin.kind === "user" } : {}),
      ...(this.beforeCompaction ? { beforeCompaction: this.beforeCompaction } : {}),
      history: this.history,
      context: this.context,
      compact: (reason, turnId, turnStart, fixedTokens, signal) => this.compact(reason, turnId, turnStart, fixedTokens, signal),
      gate: this.gate,
      questions: this.questions,
      emit: this.opts.emit,
    };
  }

  /** The goal's hold on this session: its check runs as a call of the attempt's turn, its next attempt queues here. */
  private goalDriver(): GoalDriver {
    return new GoalDriver({
      sessionId: this.scope.sessionId,
      emit: this.opts.emit,
      maxTimeoutSeconds: this.scope.config.tools.max_timeout_seconds,
      record: (entry) => this.scope.journal?.recorder.append(entry),
      filesChanged: (turnId) => {
        const cp = this.scope.services.checkpoints;
        return cp instanceof SessionCheckpoints ? cp.changed(turnId) : undefined;
      },
      queueAttempt: (prompt, attempt) => {
        if (this.queue.length || this.closed) return; // the person's next prompt is the next attempt
        const next: QueuedTurn = { turnId: this.nextTurnId(), prompt, origin: { kind: "goal", attempt } };
        this.recordTurn(next);
        this.queue.push(next);
      },
      abortRunning: () => this.running?.abort.abort(),
    });
  }
}

export function newSessionId(): string {
  return `s-${randomHex(4)}`;
}
