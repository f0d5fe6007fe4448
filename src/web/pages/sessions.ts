// Stored sessions: the list and full-text search (the SQLite index in src/ledger), and one session's transcript
// with its tool calls, their results and an edit's diff. Stored text is shown as text, secrets masked again.
import type { Hono } from "hono";
import { configuredSecrets } from "../../config/configured-secrets";
import type { LoadedSession, StoredItem } from "../../sessions/index";
import { scrubSecrets } from "../../text/scrub";
import { unifiedDiff } from "../../tools/line-diff";
import type { WebContext, WebEnv } from "../context";
import { html, page, type Raw } from "../html";
import { callView } from "./calls";

const SHOWN_SESSIONS = 200;
const OUTPUT_CHARS = 4000;

function when(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

export function registerSessions(app: Hono<WebEnv>, ctx: WebContext): void {
  // The store and the index load with the first visit: an idle daemon does not carry them for the page.
  const store = async () => (await import("../../sessions/index")).openSessionStore({ home: ctx.scvHome, warn: ctx.log });
  const clean = (text: string) => scrubSecrets(text, configuredSecrets(ctx.config, ctx.env));

  app.get("/sessions", async (c) => {
    const q = (c.req.query("q") ?? "").trim().slice(0, 200);
    const form = html`<form method="get" action="/sessions" class="row"><input name="q" value="${q}" placeholder="search every session's turns" aria-label="search"><button>Search</button></form>`;
    let list: Raw;
    if (q) {
      const { searchSessions } = await import("../../ledger/index");
      const hits = await searchSessions(await store(), q, { limit: 50 });
      list = hits.length
        ? html`<table><tr><th>When</th><th>Session</th><th>Excerpt</th></tr>${hits.map((h) => html`<tr><td>${when(h.at)}</td><td><a href="/sessions/${encodeURIComponent(h.session_id)}">${h.session_id}</a></td><td>${clean(h.excerpt)}</td></tr>`)}</table>`
        : html`<p class="mute">No turn holds every word of “${q}”.</p>`;
    } else {
      const { listSessions } = await import("../../ledger/index");
      const rows = await listSessions(await store(), { limit: SHOWN_SESSIONS });
      list = rows.length
        ? html`<table><tr><th>Last activity</th><th>Session</th><th class="n">Turns</th><th>Where</th><th>First prompt</th></tr>${rows.map(
            (r) => html`<tr><td>${when(r.last_activity)}</td><td><a href="/sessions/${encodeURIComponent(r.id)}">${r.id}</a></td><td class="n" data-label="Turns">${r.turns}</td><td>${r.channel ? `${r.channel.kind} chat` : r.workspace}</td><td>${clean(r.first_prompt.slice(0, 120))}</td></tr>`,
          )}</table>`
        : html`<p class="mute">No stored sessions yet.</p>`;
    }
    return c.html(page({ name: "sessions", title: "Sessions", body: html`<h1>Sessions</h1>${form}${list}` }));
  });

  app.get("/sessions/:id", async (c) => {
    let s: LoadedSession;
    try {
      s = (await store()).load(c.req.param("id"));
    } catch (e) {
      return c.html(page({ name: "sessions", title: "Session", body: html`<h1>Session</h1><p class="error">${(e as Error).message}</p>` }), 404);
    }
    const turns = s.turns.map(
      (t) => html`<section class="session"><div class="mute">${t.turn_id} · ${t.origin.kind} · ${when(t.started_at)} · ${t.status}${t.error ? ` (${t.error.message})` : ""}</div>
<pre>${clean(t.prompt)}</pre>${t.calls?.length ? html`${t.calls.map((call) => callView(call, clean))}${t.items.filter((i) => i.role === "tool").map((item) => itemView(item, clean))}` : t.items.map((item) => itemView(item, clean))}${t.reply ? html`<h2>Reply</h2><pre>${clean(t.reply)}</pre>` : ""}</section>`,
    );
    const body = html`<h1>Session ${s.header.id}</h1><p class="mute">${s.header.workspace} · ${s.provider}/${s.model} · started ${when(s.header.at)}</p>${turns}`;
    return c.html(page({ name: "sessions", title: `Session ${s.header.id}`, body }));
  });
}

/** A history item as the transcript shows it: tool calls (an edit as a diff) and tool results; other items are the prompt and reply already shown. */
function itemView(item: StoredItem, clean: (t: string) => string): Raw | string {
  if (item.role === "tool") return html`<details><summary>result of ${String(item.name)}</summary><pre>${clean(String(item.output ?? "").slice(0, OUTPUT_CHARS))}</pre></details>`;
  const calls = (item as { toolCalls?: { name?: unknown; arguments?: unknown }[] }).toolCalls;
  if (!Array.isArray(calls)) return "";
  return html`${calls.map((call) => {
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(String(call.arguments ?? "{}"));
    } catch {}
    const edits = Array.isArray(args.edits) ? (args.edits as { old_text?: unknown; new_text?: unknown }[]) : [];
    const bound = { maxLines: 80, maxChars: 300 };
    // An edit as its diff; a write as the lines it wrote (the file before it is not stored).
    const diff = edits.length
      ? edits.map((e) => unifiedDiff(String(e.old_text ?? ""), String(e.new_text ?? ""), bound).text).join("\n")
      : typeof args.content === "string"
        ? unifiedDiff("", args.content, bound).text
        : "";
    const shown = diff || JSON.stringify(args, null, 1).slice(0, OUTPUT_CHARS);
    return html`<div><strong>· ${String(call.name)}</strong>${typeof args.path === "string" ? ` ${args.path}` : ""}<pre class="${diff ? "diff" : ""}">${clean(shown)}</pre></div>`;
  })}`;
}
