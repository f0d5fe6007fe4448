// A turn's `session/update` notifications: the agent's message chunks become the reply, and completed message
// lines, tool-call titles (or kinds), `… failed` for a failed tool call and the current plan step become
// progress. Thoughts and tool output never do. Claude's informational chunks (`_meta.claudeCode.kind`) are
// warnings from the adapter, not part of the answer.
import { SessionUpdate } from "../../protocol/acp";

interface ToolState {
  title?: string;
  kind?: string;
  failed?: boolean;
}

export class TurnUpdates {
  private text = "";
  private pendingLine = "";
  private readonly tools = new Map<string, ToolState>();
  private planStep: string | undefined;

  /** `progress` gets raw lines; the caller redacts and throttles them. */
  constructor(private readonly progress: (line: string) => void) {}

  get reply(): string {
    return this.text.trim();
  }

  update(raw: Record<string, unknown>): void {
    const parsed = SessionUpdate.safeParse(raw);
    if (!parsed.success) return;
    const u = parsed.data;
    switch (u.sessionUpdate) {
      case "agent_message_chunk": {
        if (u.content.type !== "text" || !u.content.text || isInformational(u._meta)) return;
        this.text += u.content.text;
        this.lines(u.content.text);
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

  /** Completed lines of the message so far; a line still being written waits for its newline. */
  private lines(chunk: string): void {
    this.pendingLine += chunk;
    let nl = this.pendingLine.indexOf("\n");
    while (nl !== -1) {
      const line = this.pendingLine.slice(0, nl).trim();
      if (line) this.progress(line);
      this.pendingLine = this.pendingLine.slice(nl + 1);
      nl = this.pendingLine.indexOf("\n");
    }
  }
}

function isInformational(meta: Record<string, unknown> | null | undefined): boolean {
  const claude = meta?.claudeCode;
  return !!claude && typeof claude === "object" && (claude as Record<string, unknown>).kind === "informational";
}
