// The session contract: what a session gives every tool and service (its scope, the services attached to it,
// its turn scheduler, the chat it serves) and the risk classes every action is judged by. It sits on the floor,
// below every concern that uses it, so the tool contract, agents, process and the server all take it from here.
import type { Config } from "./config/schema";
import type { EditorFiles } from "./fs/editor-files";
import type { NotificationMethod, NotificationParams } from "./protocol/schema";
import type { NetOverrides } from "./net/index";
import type { PlanState } from "./plan/plan";
import type { SessionJournal } from "./sessions/index";
import type { SkillCatalog } from "./skills/index";

export const TOOL_RISKS = ["read_only", "filesystem", "process", "delegate", "network"] as const;
/**
 * What a file tool's call will make of one file, for a client that shows its own diff view (an editor over ACP):
 * the whole text before (null for a new file) and after, credential-looking values masked line by line.
 */
export interface FileChange {
  /** Absolute path. */
  path: string;
  old_text: string | null;
  new_text: string;
}

export type ToolRisk = (typeof TOOL_RISKS)[number];

/** Each risk in words, as every approval prompt shows it (`It changes files in the workspace (filesystem).`). */
export const RISK_WORDS: Readonly<Record<ToolRisk, string>> = {
  read_only: "reads files in the workspace",
  filesystem: "changes files in the workspace",
  process: "runs a command on this machine, not sandboxed, with your permissions (/undo restores only what it changes inside the workspace)",
  delegate: "hands work to another agent, which then acts on its own (/undo restores only what it changes inside the workspace)",
  network: "contacts a host on the network",
};

/**
 * A risk in words; a risk this build does not know (from a newer peer) is shown as it is. `sandbox` is how a
 * command runs (the guard's `sandbox`): a sandboxed one is not said to run with the user's permissions.
 */
export function riskInWords(risk: string, sandbox?: string): string {
  if (risk === "process" && sandbox?.startsWith("sandboxed: ")) {
    return RISK_WORDS.process.replace(", not sandboxed, with your permissions", ` inside the sandbox (${sandbox.slice("sandboxed: ".length)})`);
  }
  return Object.hasOwn(RISK_WORDS, risk) ? RISK_WORDS[risk as ToolRisk] : risk;
}

/** What a session gives every tool: fixed for the session's life. */
export interface SessionScope {
  sessionId: string;
  /** Identifies this SCV process instance (used in SCV_PARENT chains and records). */
  instanceId: string;
  /** The workspace root, already resolved through symlinks. */
  workspace: string;
  config: Config;
  scvHome: string;
  /** The server's own environment (tools that pass it on filter it themselves). */
  env: Readonly<Record<string, string | undefined>>;
  delegationDepth: number;
  version: string;
  /** The chat this session serves, when a chat bridge started it (session.start `channel`). */
  channel?: SessionChannel;
  /**
   * The session serves SCV's owner: a terminal or `exec` session (any client at the top of a delegation chain)
   * or the owner's direct chat. Owner-only tools and the owner's memory check this; absent means not the owner.
   */
  owner?: boolean;
  /** Nobody is at hand in this session (a schedule's run): tools that need a person (`clarify`) are not offered. */
  unattended?: boolean;
  /** Session-owned services other concerns attach (background jobs, conversations). */
  services: SessionServices;
  /** Runs when the session closes (client EOF, session.close, server exit); used to stop what it owns. */
  onClose(cleanup: () => void | Promise<void>): void;
  /** Lets a service start turns of its own once the session is idle (background reports). */
  turns: TurnScheduler;
  /**
   * Decisions for requests no person can be asked about (background jobs): policy, then auto_approve, then deny.
   * With `about`, a denial is also reported to the client (`approval.denied_unattended`).
   */
  decideUnattended(risk: ToolRisk, about?: { tool: string; summary: string; job?: string }): { approved: boolean; reason: string };
  /** The session's durable record, when the server keeps sessions (src/sessions). */
  journal?: SessionJournal;
  /** Whether the session's model takes images (read of a PNG, attached photos), and why; absent: it does not. */
  images?: { accepted: boolean; reason: string };
  /** Sends a notification to the session's client (services that report between turns, such as jobs). */
  notify?<M extends NotificationMethod>(method: M, params: NotificationParams<M>): void;
  /** The session's usage recorder (src/ledger): what its model requests and delegated calls spent, and the limits. */
  usage?: UsageRecorder;
}

/** Token counts as reported by a provider or an agent (absent counts are 0). */
export interface ReportedUsage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
  reasoning_tokens?: number;
}

export interface UsageRecorder {
  /** The turn now running (its ID and origin kind), or undefined between turns. */
  setTurn(turn: { id: string; kind: string } | undefined): void;
  /** One model request of the session's own loop (a compaction's summary request included). */
  model(usage: Required<ReportedUsage> & { cache_write_tokens?: number; cache_write_1h_tokens?: number }): void;
  /** One delegated call, with the usage the agent reported (none: counted as a call of 0 tokens). */
  delegated(call: { agent: string; model?: string; transport: string; usage?: ReportedUsage | null }): void;
  /** Why the next turn or step must not start (a spending limit is reached), or undefined. */
  refusal(): Promise<string | undefined>;
  /** The session's file gained records worth indexing (a turn ended, the session closed). */
  written(): void;
}

export interface SessionChannel {
  kind: string;
  account?: string;
  conversation?: string;
  /** The conversation's chat log directory (chat_history, chat_keep). */
  log?: string;
  /** The chat bridge says the conversation is the owner's direct chat. */
  owner?: boolean;
}

/** A turn the server starts itself, such as a background report. */
export interface IdleTurn {
  prompt: string;
  origin: { kind: "background"; jobs: string[] };
}

export interface TurnScheduler {
  /** Asked, whenever the session becomes idle, for a turn to run; the user's queued prompts always go first. */
  addIdleSource(source: () => IdleTurn | undefined): void;
  /** Call when a source may have something to run now (for example a job just finished). */
  wake(): void;
  /** True while a turn runs or user prompts wait. */
  busy(): boolean;
}

/**
 * The services a session owns, each created on first use by the module that owns it. Those from below this
 * contract are named here; the agents' (above it) add theirs by declaration merging (`declare module "../scope"`
 * in agents/service.ts and agents/jobs.ts), so every service is typed and none is cast.
 */
export interface SessionServices {
  /** Test seam: steers the connector (a fake resolver, a CA, a loopback exception) without any global switch. */
  net?: NetOverrides;
  /** The skills found at session start (tools/read_skill.ts). */
  skills?: SkillCatalog;
  /** The model's task list (tools/plan.ts). */
  plan?: PlanState;
  /**
   * The MCP servers a delegated agent's ACP `session/new` carries (src/mcp: the user's servers marked
   * share_with_agents, resolved for `cwd`), in ACP's `McpServer` shape. Set by the server for its sessions.
   */
  mcpServersForAgents?: (cwd: string) => Record<string, unknown>[];
  /** The editor's file access, when SCV serves an editor that offers it (`scv acp`): read, write and edit use it. */
  editorFiles?: EditorFiles;
  /** The session's checkpoints (src/checkpoints), when they are kept: the turn loop records through them. */
  checkpoints?: TurnCheckpoints;
}

/** What the turn loop calls so a turn's changes to the workspace can be undone; each returns notices for the person. */
export interface TurnCheckpoints {
  /** Before the turn first changes the workspace (any call whose risk is not read_only); once per turn. */
  beforeChange(turn: string): string[];
  /** The turn ended (records the workspace again if it was recorded before a change). */
  turnEnded(turn: string): string[];
  /** The session closed: releases what recording holds (the watch on the workspace). */
  close?(): void;
}

