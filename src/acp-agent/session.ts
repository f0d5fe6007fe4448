// One editor session bound to one SCV session (same ID): a prompt becomes a turn whose events stream back as
// `session/update`s, each approval becomes `session/request_permission` unless the mode or an earlier
// "always" answer decides it, and `session/cancel` cancels the turn.
import type { NotificationMethod, NotificationParams, RequestResult } from "../protocol/schema";
import { type PromptBlock, RequestPermissionResult } from "../protocol/acp";
import { isMode, type ModeId, modeApproves, modelOption, modelState, modeOption, modeState, type Profiles } from "./modes";
import { allowsTool, expandCommand, loadCommandFiles } from "../command-files/index";
import { AVAILABLE_COMMANDS, commandOffer, rewindCommandOf, runRewindCommand } from "./commands";
import { promptTurn } from "./prompt";
import { ACP_ERRORS, AcpError, type AcpPeer } from "./rpc";
import { fileTextForDiff, planUpdate, replayedCall, stopReasonOf, textContent, toolCallFinished, toolCallStarted, toolKind, toolPath } from "./updates";

/** The in-process SCV client the sessions share. */
export interface ScvClient {
  request<T = any>(method: string, params: unknown): Promise<T>;
}

export interface AcpSessionDeps {
  id: string;
  workspace: string;
  profiles: Profiles;
  /** Where the prompt's images are kept as files (the session's history refers to them). */
  imageDir: string;
  /** Reopens the SCV session on another provider profile. */
  switchProfile(name: string): Promise<void>;
  scv: ScvClient;
  peer: AcpPeer;
  log(line: string): void;
  /** The key scrubber (configured keys and well-known key formats) for file text and output sent to the editor. */
  mask(text: string): string;
  /** Where the person's command files are (`$SCV_HOME/commands`); offered as commands beside /undo and /rewind. */
  scvHome?: string;
}

/** What the editor's choice sends back in approval.resolve. */
type Answer = { approved: boolean; remember?: "workspace"; chosen?: string[] };

/** The option of a request with `choices` that approves that one part only. */
const ONLY = "allow-only:";

/**
 * The options of a permission request. For a request SCV keeps (an MCP server's connection) "always" says it
 * is kept for this workspace; one listing several servers offers each alone too.
 */
function permissionOptions(p: NotificationParams<"approval.requested">) {
  if (!p.rememberable) return PERMISSION_OPTIONS;
  const several = (p.choices?.length ?? 0) > 1;
  return [
    { optionId: "allow-once", name: several ? "Allow all for this session" : "Allow for this session", kind: "allow_once" },
    { optionId: "allow-always", name: several ? "Allow all for this workspace" : "Allow for this workspace", kind: "allow_always" },
    ...(several ? p.choices!.map((c) => ({ optionId: `${ONLY}${c}`, name: `Allow only ${c} for this session`, kind: "allow_once" })) : []),
    { optionId: "reject-once", name: "Reject", kind: "reject_once" },
  ];
}

const PERMISSION_OPTIONS = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow-always", name: "Allow identical calls", kind: "allow_always" },
  { optionId: "reject-once", name: "Reject", kind: "reject_once" },
  { optionId: "reject-always", name: "Reject identical calls", kind: "reject_always" },
] as const;

/** A tool call as far as its updates need it: the file an edit changes and that file's text before. */
interface CallState {
  title: string;
  kind: string;
  path?: string;
  before?: string | null;
}

interface RunningPrompt {
  turnId?: string;
  cancelRequested: boolean;
  end(p: NotificationParams<"turn.ended">): void;
}

type Ended = NotificationParams<"turn.ended">;

export class AcpSession {
  private mode: ModeId = "ask";
  /** Identities of calls answered "always": the server's fingerprint (same tool, same arguments), as the TUI. */
  private readonly allowAlways = new Set<string>();
  private readonly rejectAlways = new Set<string>();
  private readonly calls = new Map<string, CallState>();
  private running: RunningPrompt | undefined;
  /** The text last written through the editor per file, for the diff (the editor may not have saved it yet). */
  private readonly editorWrites = new Map<string, string>();
  /** Turns that ended before turn.start's reply named them (kept briefly, so no end is missed). */
  private readonly endedEarly = new Map<string, Ended>();
  private commandsAnnounced = false;
  /** While a command file's prompt runs: its allowed-tools. */
  private commandAllows: string[] | undefined;
  private commandCount = 0;

  constructor(private readonly deps: AcpSessionDeps) {}

  get id(): string {
    return this.deps.id;
  }

  get workspace(): string {
    return this.deps.workspace;
  }

  /** The modes and options a session/new, load or resume reply carries. */
  state() {
    if (!this.commandsAnnounced) {
      this.commandsAnnounced = true;
      // After the reply that opens the session, so the editor knows the session the commands belong to.
      setTimeout(() => this.update({ sessionUpdate: "available_commands_update", availableCommands: [...AVAILABLE_COMMANDS, ...this.commandFiles().map(commandOffer)] }), 0);
    }
    return { modes: modeState(this.mode), models: modelState(this.deps.profiles), configOptions: this.configOptions() };
  }

  private configOptions() {
    return [modeOption(this.mode), modelOption(this.deps.profiles)];
  }

  setMode(modeId: string): void {
    if (!isMode(modeId)) throw new AcpError(ACP_ERRORS.invalid_params, `unknown mode "${modeId}"; the modes are ${modeState(this.mode).availableModes.map((m) => m.id).join(", ")}`);
    const serverMode = (id: ModeId) => (id === "accept-edits" ? "accept-edits" : "ask");
    const change = serverMode(modeId) !== serverMode(this.mode);
    this.mode = modeId;
    // Accept edits is the server's own policy (edit and write inside the workspace, secret-like paths excepted).
    if (change) void this.applyServerMode();
    this.update({ sessionUpdate: "current_mode_update", currentModeId: modeId });
  }

  private async applyServerMode(): Promise<void> {
    await this.deps.scv.request("session.configure", { session_id: this.id, approval_mode: this.mode === "accept-edits" ? "accept-edits" : "ask" }).catch((e) => this.deps.log(`mode: ${(e as Error).message}`));
  }

  /** The person's command files (src/command-files): user ones, and the project's once it is trusted. */
  private commandFiles(): import("../command-files/index").CommandFile[] {
    if (!this.deps.scvHome) return [];
    const { items, notices } = loadCommandFiles({ scvHome: this.deps.scvHome, workspace: this.workspace, builtins: AVAILABLE_COMMANDS.map((c) => c.name) });
    for (const n of notices) this.deps.log(`commands: ${n}`);
    return items;
  }

  async setConfigOption(configId: string, value: unknown) {
    if (typeof value !== "string" || (configId !== "mode" && configId !== "model")) {
      throw new AcpError(ACP_ERRORS.invalid_params, `unknown config option "${configId}" or value ${JSON.stringify(value)}; SCV offers "mode" and "model", each a select`);
    }
    if (configId === "mode") this.setMode(value);
    else await this.setProfile(value);
    return { configOptions: this.configOptions() };
  }

  /**
   * Switching the model reopens the SCV session on that provider profile with its history; it waits for no
   * prompt, and background jobs of the session end with it (as on session/close).
   */
  private async setProfile(name: string): Promise<void> {
    const profiles = this.deps.profiles;
    if (!profiles.all.some((p) => p.name === name)) {
      throw new AcpError(ACP_ERRORS.invalid_params, `unknown model "${name}"; the configured provider profiles are ${profiles.all.map((p) => p.name).join(", ")}`);
    }
    if (this.running) throw new AcpError(ACP_ERRORS.invalid_request, `a prompt is running in session ${this.id}; switch the model after it ends`);
    if (name === profiles.current) return;
    await this.deps.switchProfile(name);
    if (this.mode === "accept-edits") await this.applyServerMode(); // the reopened session starts asking
    profiles.current = name;
    this.update({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
  }

  /** Sends a stored session's turns as they happened (the person's prompts, the tool calls, SCV's replies), then its plan. */
  replay(r: Pick<RequestResult<"session.resume">, "turns" | "plan">): void {
    for (const t of r.turns) {
      if (t.origin.kind === "user") this.update({ sessionUpdate: "user_message_chunk", content: { type: "text", text: t.prompt } });
      (t.calls ?? []).forEach((c, i) => this.update(replayedCall(this.workspace, `${t.turn_id}-replay-${i + 1}`, c, this.deps.mask)));
      if (t.reply) this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t.reply } });
    }
    if (r.plan?.length) this.update(planUpdate(r.plan));
  }

  async prompt(blocks: PromptBlock[], fromCommand = false): Promise<{ stopReason: string }> {
    if (this.running) throw new AcpError(ACP_ERRORS.invalid_request, `a prompt is already running in session ${this.id}; wait for its result or send session/cancel first`);
    const { text, images } = promptTurn(blocks, this.deps.imageDir);
    const command = images.length ? undefined : rewindCommandOf(text);
    if (command) {
      const reply = await runRewindCommand(this.deps, command, `rewind-${++this.commandCount}`);
      this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: reply } });
      return { stopReason: "end_turn" };
    }
    // `/name args` of a command file becomes its prompt.
    const own = images.length || fromCommand ? undefined : /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
    const file = own ? this.commandFiles().find((c) => c.name === own[1]!.toLowerCase()) : undefined;
    if (file) {
      this.commandAllows = file.allowedTools.length ? file.allowedTools : undefined;
      try {
        return await this.prompt([{ type: "text", text: expandCommand(file.body, own![2] ?? "") }], true);
      } finally {
        this.commandAllows = undefined;
      }
    }
    let end!: (p: Ended) => void;
    const ended = new Promise<Ended>((r) => (end = r));
    const running: RunningPrompt = { cancelRequested: false, end };
    this.running = running;
    try {
      const { turn_id } = await this.deps.scv.request<{ turn_id: string }>("turn.start", { session_id: this.id, prompt: text, ...(images.length ? { images } : {}) }).catch((e) => {
        // SCV refuses images for a model that takes none, saying why: the editor gets that as bad params.
        throw new AcpError(ACP_ERRORS.invalid_params, (e as Error).message);
      });
      running.turnId = turn_id;
      const early = this.endedEarly.get(turn_id);
      if (early) end(early);
      if (running.cancelRequested) void this.cancelTurn();
      return { stopReason: stopReasonOf(await ended) };
    } finally {
      this.endedEarly.clear();
      if (this.running === running) this.running = undefined;
    }
  }

  cancel(): void {
    if (!this.running) return;
    this.running.cancelRequested = true;
    if (this.running.turnId) void this.cancelTurn();
  }

  wroteThroughEditor(path: string, content: string): void {
    this.editorWrites.set(path, content);
  }

  /** The session is closing: a prompt still waiting ends as cancelled. */
  closed(): void {
    this.running?.end({ status: "cancelled" } as Ended);
  }

  onEvent<M extends NotificationMethod>(method: M, params: NotificationParams<M>): void {
    const p = params as any;
    switch (method) {
      case "assistant.delta":
        return this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: p.text } });
      case "reasoning.delta":
        return this.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: p.text } });
      case "tool.started":
        return this.toolStarted(p);
      case "tool.progress":
        return this.update({ sessionUpdate: "tool_call_update", toolCallId: p.call_id, status: "in_progress", content: [textContent(this.deps.mask(p.line))] });
      case "tool.completed": {
        const call: CallState = this.calls.get(p.call_id) ?? { title: p.tool, kind: "other" };
        this.calls.delete(p.call_id);
        const written = call.path ? this.editorWrites.get(call.path) : undefined;
        if (call.path) this.editorWrites.delete(call.path);
        return this.update(toolCallFinished(p, { ...call, ...(written !== undefined ? { after: written } : {}) }, this.deps.mask));
      }
      case "approval.requested":
        return void this.approve(p);
      case "clarify.requested":
        return void this.question(p);
      case "approval.denied_unattended":
        return this.deps.log(`denied without asking (${p.reason}): ${p.summary.split("\n")[0]}`);
      case "model.notice":
      case "model.retrying":
        return this.deps.log(method === "model.notice" ? p.message : `model request failed (${p.error.message}); retry ${p.attempt} of ${p.max_retries}`);
      case "plan.updated":
        return this.update(planUpdate(p.items));
      case "turn.ended":
        return this.turnEnded(p);
    }
  }

  private toolStarted(p: NotificationParams<"tool.started">): void {
    const kind = toolKind(p);
    const path = toolPath(this.workspace, p.arguments);
    // The file's text before an edit, read before the call is approved and runs, for the diff after it.
    const before = kind === "edit" && path ? fileTextForDiff(path) : undefined;
    this.calls.set(p.call_id, { title: p.label, kind, ...(path ? { path, before } : {}) });
    this.update(toolCallStarted(this.workspace, p, this.deps.mask));
  }

  private turnEnded(p: Ended): void {
    const running = this.running;
    if (running?.turnId === p.turn_id) running.end(p);
    else if (running && !running.turnId && p.origin.kind === "user") this.endedEarly.set(p.turn_id, p);
  }

  private async approve(p: NotificationParams<"approval.requested">): Promise<void> {
    const identity = p.fingerprint ?? `${p.tool}\u0000${p.summary}`;
    // A request that is no tool call of this turn (an MCP server's connect, a relayed agent's request) is never
    // a plain read, whatever its risk: approve-reads leaves it to the editor.
    const kind = this.calls.get(p.call_id)?.kind ?? "other";
    let answer: Answer;
    // A request to run outside the sandbox is a person's decision: no mode or earlier "always" answers it.
    // A command file's allowed-tools run unasked during its prompt, as in Claude Code.
    const byCommand = this.commandAllows !== undefined && allowsTool(this.commandAllows, p.tool, p.tool === "bash" ? String(p.summary).split("\n", 1)[0]!.replace(/^\$\s*/, "") : undefined);
    if (!p.guard?.person_only && (byCommand || modeApproves(this.mode, { kind, risk: p.risk }) || this.allowAlways.has(identity))) answer = { approved: true };
    else if (this.rejectAlways.has(identity)) answer = { approved: false };
    else answer = await this.ask(p, identity);
    await this.deps.scv.request("approval.resolve", { session_id: this.id, approval_id: p.approval_id, ...answer }).catch(() => {
      // the turn ended (cancelled) while the editor was asked: nothing waits for the answer any more
    });
  }

  private async ask(p: NotificationParams<"approval.requested">, identity: string): Promise<Answer> {
    const call = this.calls.get(p.call_id);
    const kind = call?.kind ?? toolKind(p);
    const toolCall = {
      toolCallId: p.call_id,
      title: call?.title ?? p.tool,
      kind,
      status: "pending",
      // The change whole, for the editor's own diff view, then SCV's summary (the card a terminal shows).
      content: [
        ...(p.change ? [{ type: "diff", path: p.change.path, oldText: p.change.old_text === null ? null : this.deps.mask(p.change.old_text), newText: this.deps.mask(p.change.new_text) }] : []),
        textContent(this.deps.mask(p.summary)),
      ],
      ...(call?.path ? { locations: [{ path: call.path }] } : {}),
    };
    let answer;
    try {
      answer = await this.deps.peer.request("session/request_permission", { sessionId: this.id, toolCall, options: permissionOptions(p) }, RequestPermissionResult);
    } catch (e) {
      this.deps.log(`approval for ${p.tool} denied: the editor did not answer (${(e as Error).message})`);
      return { approved: false };
    }
    if (answer.outcome.outcome === "cancelled") return { approved: false };
    const option = answer.outcome.optionId;
    if (option.startsWith(ONLY) && p.choices?.includes(option.slice(ONLY.length))) return { approved: true, chosen: [option.slice(ONLY.length)] };
    switch (option) {
      case "allow-always":
        // A request the server keeps (an MCP server's connection) is kept for this workspace, as the option says.
        if (p.rememberable) return { approved: true, remember: "workspace" };
        this.allowAlways.add(identity);
        return { approved: true };
      case "allow-once":
        return { approved: true };
      case "reject-always":
        this.rejectAlways.add(identity);
        return { approved: false };
      default:
        return { approved: false };
    }
  }

  /** The model's question: put to the editor as far as ACP can carry it (question.ts), then answered. */
  private async question(p: NotificationParams<"clarify.requested">): Promise<void> {
    const { askEditor } = await import("./question");
    const answer = await askEditor(this.deps.peer, this.id, p, this.deps.log);
    await this.deps.scv.request("clarify.answer", { session_id: this.id, clarify_id: p.clarify_id, ...(answer ? { answer } : {}) }).catch(() => {
      // the turn ended (cancelled) or the question timed out while the editor was asked
    });
  }

  private async cancelTurn(): Promise<void> {
    await this.deps.scv.request("turn.cancel", { session_id: this.id }).catch((e) => this.deps.log(`cancel failed: ${(e as Error).message}`));
  }

  private update(update: Record<string, unknown>): void {
    this.deps.peer.notify("session/update", { sessionId: this.id, update });
  }
}
