// A turn's `session/update` notifications: the agent's message chunks become the reply, and completed message
// lines, tool-call titles (or kinds), `… failed` for a failed tool call and the current plan step become
// progress. Thoughts and tool output never do. Claude's informational chunks (`_meta.claudeCode.kind`) are
// warnings from the adapter, not part of the answer.
import { PartialLines } from "../../text/partial-lines";
import { SessionUpdate } from "../../protocol/acp";

interface ToolState {
  title?: string;
  kind?: string;
  failed?: boolean;
}

export class TurnUpdates {
  /** The reply's chunks, kept until they pass maxReplyBytes; what comes after is counted, not kept. */
  private readonly chunks: string[] = [];
  private kept = 0;
  private dropped = 0;
  private readonly lines: PartialLines;
  private readonly tools = new Map<string, ToolState>();
  private planStep: string | undefined;

  /**
   * `progress` gets raw lines; the caller redacts and throttles them. `maxReplyBytes` bounds the reply kept
   * (the tool output limit: the result would be cut to it anyway), so an agent streaming without end costs
   * nothing beyond it.
   */
  constructor(
    private readonly progress: (line: string) => void,
    private readonly maxReplyBytes = 16 * 1024 * 1024,
  ) {
    this.lines = new PartialLines((line) => {
      const shown = line.trim();
      if (shown) this.progress(shown);
    });
  }

  get reply(): string {
    const text = this.chunks.join("").trim();
    return this.dropped ? `${text}\n[SCV: the agent's reply went on for ${this.dropped} more characters, not kept]` : text;
  }

  private append(chunk: string): void {
    const room = this.maxReplyBytes - this.kept;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const piece = chunk.length > room ? chunk.slice(0, room) : chunk;
    this.chunks.push(piece);
    this.kept += piece.length;
    this.dropped += chunk.length - piece.length;
  }

  update(raw: Record<string, unknown>): void {
    const parsed = SessionUpdate.safeParse(raw);
    if (!parsed.success) return;
    const u = parsed.data;
    switch (u.sessionUpdate) {
      case "agent_message_chunk": {
        if (u.content.type !== "text" || !u.content.text || isInformational(u._meta)) return;
        this.append(u.content.text);
        this.lines.push(u.content.text);
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const state = this.tools.get(u.toolCallId) ?? {};
        this.tools.set(u.toolCallId, state);
        const before = state.title ?? state.kind;
        if (u.title) state.title = u.title;
        if (u.kind) state.kind = u.kind;
        const shown = state.title ?? state.kind;
        if (shown && shown !== before) this.progress(shown);
        if (u.status === "failed" && !state.failed) {
          state.failed = true;
          this.progress(`${shown ?? "tool call"} failed`);
        }
        return;
      }
      case "plan": {
        const step = u.entries.find((e) => e.status === "in_progress") ?? u.entries.find((e) => e.status === "pending");
        if (step && step.content !== this.planStep) this.progress(step.content);
        this.planStep = step?.content;
        return;
      }
    }
  }
}

function isInformational(meta: Record<string, unknown> | null | undefined): boolean {
  const claude = meta?.claudeCode;
  return !!claude && typeof claude === "object" && (claude as Record<string, unknown>).kind === "informational";
}
