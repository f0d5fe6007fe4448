// The `web` channel: the owner's chat in the daemon's own web page ([web_ui], src/web). Messages come from the
// page (each with an ID the page picked, so a resend after a lost answer is the same message), replies go to
// every open page; the core's queue, outbox and chat log make it exactly-once like any other channel. The page
// is signed in as the owner, so there is one conversation, the owner's direct chat. Approvals are asked in the
// page unless [web_ui] auto_approve is set.
import type { AdapterContext, ChannelAdapter, OutboundMessage, SendResult } from "../core/adapter";

export const WEB_OWNER = "owner";

export class WebAdapter implements ChannelAdapter {
  readonly kind = "web";
  readonly account = WEB_OWNER;
  readonly owner = WEB_OWNER;
  readonly approvals?: "ask";
  readonly where = "the daemon's web page (scv web)";
  private ctx?: AdapterContext;
  private readonly pages = new Set<(m: OutboundMessage) => void>();

  constructor(opts: { autoApprove: boolean }) {
    if (!opts.autoApprove) this.approvals = "ask";
  }

  ownerConversation(): string {
    return WEB_OWNER;
  }

  async connect(ctx: AdapterContext, signal: AbortSignal): Promise<void> {
    this.ctx = ctx;
    ctx.setState({ state: "connected" });
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
    this.ctx = undefined;
  }

  /** A message from the page; resolves once it is durably queued (or known as a repeat of `id`). */
  async submit(id: string, text: string): Promise<void> {
    if (!this.ctx) throw new Error("the web chat is not running yet (the daemon is starting or stopping); try again in a moment");
    await this.ctx.receive({ id, conversation: WEB_OWNER, from: WEB_OWNER, direct: true, text, files: [] });
  }

  /** Every open page gets the reply; one with none open reads it from the chat log when it opens. */
  async send(message: OutboundMessage): Promise<SendResult> {
    for (const page of this.pages) page(message);
    return { status: "sent" };
  }

  onReply(page: (m: OutboundMessage) => void): () => void {
    this.pages.add(page);
    return () => void this.pages.delete(page);
  }
}
