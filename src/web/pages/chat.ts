// The chat page (the owner's web channel), the live page (every hosted session's running turn and the approvals
// waiting for a person; its Sandbox section is filled from /api/sandbox, pages/sandbox.ts), and their event stream.
import type { Hono } from "hono";
import { listEpisodes, readEpisode, type LoggedTool, type MessageEntry } from "../../chatlog/log";
import { conversationLogDir } from "../../chatlog/paths";
import type { LiveEvent } from "../../channels/core/live";
import { WEB_OWNER, type WebAdapter } from "../../channels/web/adapter";
import type { WebContext, WebEnv } from "../context";
import { html, page } from "../html";
import { jsonBody } from "../request";

const SHOWN_MESSAGES = 200;
const HEARTBEAT_MS = 25_000;

function webAdapter(ctx: WebContext): WebAdapter | undefined {
  return ctx.channels()?.adapter(`web/${WEB_OWNER}`) as WebAdapter | undefined;
}

/** The current episode of the web conversation, as the chat log has it. */
function history(ctx: WebContext): MessageEntry[] {
  const dir = conversationLogDir(ctx.config, ctx.scvHome, { kind: "web", account: WEB_OWNER, conversation: WEB_OWNER });
  const episode = listEpisodes(dir)[0];
  if (!episode) return [];
  const entries = readEpisode(dir, episode).filter((e): e is MessageEntry => e.type === "message");
  return entries.slice(-SHOWN_MESSAGES);
}

/** A call as the chat shows it, during the turn (the script) and after it (here): `✓ $ ls (exit 0, 0.1 s)`. */
export function toolLine(t: LoggedTool): string {
  const mark = t.status === "denied" ? "⊘" : t.status === "failed" ? "✗" : "✓";
  // The display of a denied call says so already (`denied: <reason>`); without one the reason is added.
  const how = t.status === "denied" ? (t.display?.includes("denied") ? "" : ` — denied${t.reason ? `: ${t.reason}` : ""}`) : t.status === "failed" && !t.display ? " — failed" : "";
  return `${mark} ${t.label}${t.display ? ` (${t.display})` : ""}${how}`;
}

/** The turn's tool calls under its reply, folded: a summary line that opens to one line per call. */
function toolsBlock(tools: LoggedTool[] | undefined) {
  if (!tools?.length) return "";
  const bad = tools.filter((t) => t.status !== "ran").length;
  const summary = `${tools.length} tool call${tools.length === 1 ? "" : "s"}${bad ? `, ${bad} denied or failed` : ""}`;
  return html`<details class="calls"><summary>${summary}</summary><ul class="tools">${tools.map((t) => html`<li class="${t.status}">${toolLine(t)}</li>`)}</ul></details>`;
}

export function registerChat(app: Hono<WebEnv>, ctx: WebContext): void {
  app.get("/chat", (c) => {
    const messages = history(ctx);
    const body = html`<h1>Chat</h1>
<ol id="messages">${messages.map((m) => html`<li class="${m.author === "owner" ? "owner" : m.author === "system" ? "system" : "scv"}"><div class="text">${m.text}</div>${toolsBlock(m.tools)}</li>`)}</ol>
<div id="approvals"></div>
<form id="send" class="row"><textarea name="text" placeholder="Ask SCV… (Enter sends, Shift+Enter: new line; /new starts over, /stop stops)" required></textarea><button class="primary">Send</button></form>`;
    return c.html(page({ name: "chat", title: "Chat", body }));
  });

  app.get("/live", (c) => {
    const body = html`<h1>Live</h1><p class="mute">Every session the daemon hosts, with its running turn; approvals wait here for you.</p><div id="approvals"></div><div id="sessions"><p class="mute">Loading…</p></div><section id="sandbox"><h2>Sandbox</h2><p class="mute">Loading…</p></section>`;
    return c.html(page({ name: "live", title: "Live", body }));
  });

  app.get("/api/live", (c) => c.json(ctx.live.snapshot()));

  app.post("/api/chat", async (c) => {
    const body = jsonBody(c.get("body"));
    if (typeof body === "string") return c.json({ error: body }, 400);
    const { id, text } = body;
    if (typeof id !== "string" || !/^[A-Za-z0-9-]{8,64}$/.test(id)) return c.json({ error: "id must be 8-64 letters, digits or -" }, 400);
    if (typeof text !== "string" || !text.trim()) return c.json({ error: "text must be a non-empty string" }, 400);
    const adapter = webAdapter(ctx);
    if (!adapter) return c.json({ error: "the web chat is not running yet; try again in a moment" }, 503);
    try {
      await adapter.submit(`web-${id}`, text);
    } catch (e) {
      return c.json({ error: (e as Error).message }, 503);
    }
    return c.json({ queued: true }, 202);
  });

  app.post("/api/approvals/:id", async (c) => {
    const body = jsonBody(c.get("body"));
    if (typeof body === "string") return c.json({ error: body }, 400);
    const decision = body.decision;
    if (decision !== "once" && decision !== "always" && decision !== "deny") return c.json({ error: 'decision must be "once", "always" or "deny"' }, 400);
    const reason = typeof body.reason === "string" ? body.reason.slice(0, 1000) : "";
    let answered: boolean;
    try {
      answered = await ctx.live.answer(c.req.param("id"), { approved: decision !== "deny", always: decision === "always", ...(reason ? { reason } : {}) });
    } catch (e) {
      return c.json({ error: (e as Error).message }, 409);
    }
    return answered ? c.json({ ok: true }) : c.json({ error: "no such approval is waiting (answered already, or its turn ended)" }, 404);
  });

  app.get("/api/events", (c) => {
    const encoder = new TextEncoder();
    let stop = () => {};
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (e: LiveEvent | { type: "chat.reply"; id: string; text: string }) => {
          try {
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(e)}\n\n`));
          } catch {
            stop();
          }
        };
        const offLive = ctx.live.subscribe(send);
        const offReply = webAdapter(ctx)?.onReply((m) => send({ type: "chat.reply", id: m.idempotencyKey, text: m.text })) ?? (() => {});
        const beat = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(": ping\n\n"));
          } catch {
            stop();
          }
        }, HEARTBEAT_MS);
        stop = () => {
          offLive();
          offReply();
          clearInterval(beat);
        };
        controller.enqueue(encoder.encode(": connected\n\n"));
      },
      cancel() {
        stop();
      },
    });
    c.req.raw.signal.addEventListener("abort", () => stop());
    return c.body(stream, 200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive" });
  });
}
