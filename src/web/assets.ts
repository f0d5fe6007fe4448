// The page's one stylesheet and one script, embedded in the binary: no build step, nothing from a CDN. The
// script puts model and tool output on the page only as text (textContent), never as markup. It holds the page
// key (handed over once by the sign-in answer) in this origin's localStorage, which another port cannot read,
// and sends it in X-SCV-Key on every request for data or a change: a page load gets only a shell, which the
// script fills by loading the same address again with the key.
export const STYLE_CSS = `
:root{color-scheme:light dark;--fg:#1d1f21;--bg:#fafafa;--mute:#6a6f75;--line:#d8dadd;--acc:#2463d1;--warn:#a25c00;--bad:#b3261e;--ok:#1f7a3a;--card:#fff}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#16181b;--mute:#9aa0a6;--line:#33373c;--acc:#7aa7ff;--warn:#e0a040;--bad:#ff7b72;--ok:#56d364;--card:#1e2125}}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;gap:1em;align-items:center;flex-wrap:wrap;padding:.6em 1em;border-bottom:1px solid var(--line)}
nav{display:flex;gap:.8em;flex-wrap:wrap}nav a{color:var(--mute);text-decoration:none}nav a[aria-current]{color:var(--fg);font-weight:600}
main{max-width:60em;margin:0 auto;padding:1em}h1{font-size:1.3em;margin:.2em 0 .8em}h2{font-size:1.05em;margin:1.4em 0 .5em}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3em .5em;border-bottom:1px solid var(--line);vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
pre{white-space:pre-wrap;word-break:break-word;background:var(--card);border:1px solid var(--line);padding:.5em;margin:.3em 0;font-size:.9em;max-height:30em;overflow:auto}
.mute{color:var(--mute)}.ok{color:var(--ok)}.warning{color:var(--warn)}.problem,.error{color:var(--bad)}
button,input,select,textarea{font:inherit;color:inherit;background:var(--card);border:1px solid var(--line);border-radius:4px;padding:.3em .6em}
button{cursor:pointer}button.primary{background:var(--acc);border-color:var(--acc);color:#fff}button.danger{color:var(--bad)}
textarea{width:100%;min-height:5em}form.row{display:flex;gap:.5em;align-items:flex-end}form.row textarea{flex:1;min-height:3em}
#messages{list-style:none;padding:0;margin:0 0 1em}#messages li{margin:.5em 0;padding:.5em .7em;border-radius:6px;background:var(--card);border:1px solid var(--line);white-space:pre-wrap;word-break:break-word}
#messages li.owner{margin-left:15%;border-color:var(--acc)}#messages li.system{color:var(--mute);font-size:.92em}#messages li.scv{margin-right:10%}
.tools{list-style:none;padding:0;margin:.3em 0 0;font:.85em ui-monospace,monospace;color:var(--mute)}.tools li{border:0!important;padding:0!important;margin:0!important;background:none!important}
.card{border:2px solid var(--warn);border-radius:6px;padding:.6em .8em;margin:.6em 0;background:var(--card)}.card .actions{display:flex;gap:.5em;flex-wrap:wrap;align-items:center;margin-top:.4em}
.session{border:1px solid var(--line);border-radius:6px;padding:.5em .8em;margin:.5em 0;background:var(--card)}
svg.chart{width:100%;height:auto;display:block}svg.chart rect{fill:var(--acc)}svg.chart line.limit{stroke:var(--bad);stroke-width:.6;stroke-dasharray:1.5 1.5}svg.chart{max-width:52em}svg.chart text{fill:var(--mute);font-size:4px}
.bar{width:100%;height:.6em}.note{margin:.5em 0}
details.calls{margin-top:.3em;font-size:.9em}details.calls summary{cursor:pointer;color:var(--mute)}.tools li.denied,.tools li.failed{color:var(--bad)}
form#send{position:sticky;bottom:0;background:var(--bg);padding:.5em 0;z-index:4}
td{overflow-wrap:anywhere}header nav{min-width:0}header button{flex:none;white-space:nowrap;margin-left:auto;font-size:.85em;padding:.2em .5em}
@media (max-width:640px){
header{padding:.4em .6em;gap:.6em;flex-wrap:nowrap}nav{flex-wrap:nowrap;overflow-x:auto;gap:.7em;white-space:nowrap;scrollbar-width:none}
main{padding:.6em}h1{font-size:1.15em;margin:.1em 0 .5em}
table,table tbody,table tr,table td{display:block;width:100%}table th,table tr:has(> th){display:none}
table tr{border:1px solid var(--line);border-radius:6px;margin:.5em 0;padding:.35em .6em;background:var(--card)}
table td{border:0;padding:.1em 0}td.n{text-align:left}td[data-label]::before{content:attr(data-label) ": ";color:var(--mute)}
td.n[data-label]{display:inline-block;width:auto;margin-right:1em}td.key{font-weight:600}
td.actions{display:flex;flex-wrap:wrap;gap:.4em;margin-top:.3em}td.actions button{flex:1 1 auto;min-height:2.4em}
#messages li.owner{margin-left:8%}#messages li.scv{margin-right:0}
form.row{flex-wrap:nowrap}form.row input{min-width:0;flex:1}
}
.call{margin:.4em 0}.call.denied strong,.call.failed strong{color:var(--bad)}.badge{font-size:.8em;border:1px solid var(--bad);color:var(--bad);border-radius:3px;padding:0 .3em}
pre.diff span{display:block}pre.diff .add{color:var(--ok)}pre.diff .del{color:var(--bad)}pre.diff .hunk{color:var(--mute)}pre.diff i{font-style:normal;color:var(--mute);user-select:none;margin-right:.6em}pre.diff.not-applied{opacity:.6;border-style:dashed}
#sandbox td.key{overflow-wrap:break-word}#sandbox td.sid{white-space:nowrap}#sandbox p.hosts code{overflow-wrap:anywhere}
#notices{position:sticky;top:0;z-index:5}#notices .notice{border:2px solid var(--acc);border-radius:6px;padding:.5em .8em;margin:.4em 0;background:var(--card);white-space:pre-wrap;word-break:break-word}
`;

export const APP_JS = `"use strict";
(() => {
const KEY = "scv-web-key";
const $ = (s, r = document) => r.querySelector(s);
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };

// The sign-in answer hands over the page key, once: kept in this origin's storage, never in a cookie.
const handed = $('meta[name="scv-key"]');
if (handed) {
  try { localStorage.setItem(KEY, handed.content); location.replace("/chat"); }
  catch { $("main").textContent = "This browser would not keep the page's key (site data is blocked for this address). Allow it, then run scv web for a new sign-in link."; }
  return;
}
let key = "";
try { key = localStorage.getItem(KEY) || ""; } catch {}
const send = (url, init = {}) => fetch(url, { ...init, credentials: "same-origin", headers: { ...(init.headers || {}), "x-scv-key": key } });

async function post(url, body) {
  const res = await send(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body || {}) });
  let data = {};
  try { data = await res.json(); } catch {}
  if (!res.ok) throw new Error(data.error || ("HTTP " + res.status));
  return data;
}

// Buttons and forms that change something: POST with the CSRF token, then show the answer or reload.
document.addEventListener("click", async (ev) => {
  const b = ev.target.closest("button[data-post]");
  if (!b) return;
  ev.preventDefault();
  if (b.dataset.confirm && !confirm(b.dataset.confirm)) return;
  b.disabled = true;
  try { await post(b.dataset.post, {}); location.reload(); } catch (e) { alert(e.message); b.disabled = false; }
});
document.addEventListener("submit", async (ev) => {
  const f = ev.target.closest("form[data-post]");
  if (!f) return;
  ev.preventDefault();
  const note = $(".note", f) || f.appendChild(el("p", "note"));
  const body = Object.fromEntries(new FormData(f).entries());
  try { const r = await post(f.dataset.post, body); note.className = "note ok"; note.textContent = r.message || "saved"; }
  catch (e) { note.className = "note error"; note.textContent = e.message; }
});

// Approval cards: the same facts the terminal shows (tool, risk, what will change, the guard's reason).
function approvalCard(a) {
  const r = a.request;
  const card = el("div", "card");
  card.dataset.approval = a.id;
  card.append(el("strong", "", r.tool + " wants to run (" + r.risk.replace("_", " ") + ")"), el("div", "mute", a.source + " · " + r.workspace));
  card.append(el("pre", "", r.summary));
  if (r.guard && r.guard.reason) card.append(el("div", "warning", "guard: " + r.guard.reason));
  const actions = el("div", "actions");
  const reason = el("input"); reason.placeholder = "reason (optional)"; reason.name = "reason";
  const answer = async (decision) => { try { await post("/api/approvals/" + encodeURIComponent(a.id), { decision, reason: reason.value }); card.remove(); } catch (e) { alert(e.message); } };
  const once = el("button", "primary", "Allow once"); once.onclick = () => answer("once");
  actions.append(once);
  if (r.rule_prefix || r.rememberable) {
    const always = el("button", "", r.rule_prefix ? "Always allow “" + r.rule_prefix.join(" ") + " …” here" : "Always allow here");
    always.onclick = () => answer("always"); actions.append(always);
  }
  const deny = el("button", "danger", "Deny"); deny.onclick = () => answer("deny");
  actions.append(deny, reason);
  card.append(actions);
  return card;
}

function sessionView(s) {
  const box = el("div", "session");
  box.dataset.session = s.id;
  box.append(el("strong", "", s.source), el("span", "mute", " · " + s.id));
  if (s.turn) {
    box.append(el("div", "mute", "> " + s.turn.prompt));
    const tools = el("ul", "tools");
    for (const t of s.turn.tools) tools.append(el("li", "", (t.ok === undefined ? "… " : t.ok ? "✓ " : "✗ ") + t.label + (t.display ? " · " + t.display : "")));
    box.append(tools, el("pre", "", s.turn.text || "…"));
  } else box.append(el("div", "mute", s.last ? "idle; last turn " + s.last.status : "idle"));
  return box;
}

// The Live page's Sandbox section (/api/sandbox): the words of scv status, the hosts the egress proxy allows and
// denies, and its latest refusals as scv sandbox log lists them; text only.
function hostList(label, hosts, cls) {
  const p = el("p", "hosts " + cls);
  p.dataset.list = cls;
  p.append(el("strong", "", label + ": "));
  if (!hosts.length) p.append(el("span", "mute", "none"));
  hosts.forEach((h, i) => { if (i) p.append(", "); p.append(el("code", "", h)); });
  return p;
}
function sandboxView(v) {
  const out = [el("h2", "", "Sandbox")];
  const status = el("p", "status", v.status);
  status.id = "sandbox-status";
  out.push(status);
  if (v.proxy) {
    out.push(hostList("Hosts allowed", v.allowed, "allowed"), hostList("Denied", v.denied, "denied"));
    if (v.read_only) out.push(el("p", "mute", 'mode = "read": only GET, HEAD and OPTIONS on plain HTTP'));
  }
  out.push(el("p", "mute", "Last 24 hours: " + v.counts.allowed + " allowed, " + v.counts.refused + " refused (all of them: scv sandbox log)"));
  if (v.refused.length) {
    const table = el("table");
    table.id = "sandbox-refused";
    const head = el("tr");
    for (const h of ["When", "Host", "Why", "Command", "Session"]) head.append(el("th", "", h));
    table.append(head);
    for (const r of v.refused) {
      const tr = el("tr");
      tr.dataset.host = r.host;
      const when = el("td", "", new Date(r.time).toLocaleString());
      const host = el("td", "key", r.host + ":" + r.port + " (" + r.via + ")");
      const why = el("td", "", r.reason || "refused"); why.dataset.label = "Why";
      const cmd = el("td", "", r.command || ""); cmd.dataset.label = "Command";
      const session = el("td", "mute sid", r.session || ""); session.dataset.label = "Session";
      tr.append(when, host, why, cmd, session);
      table.append(tr);
    }
    out.push(table);
  }
  return out;
}
async function refreshSandbox() {
  const box = $("#sandbox");
  if (!box) return;
  const res = await send("/api/sandbox");
  if (!res.ok) return;
  box.replaceChildren(...sandboxView(await res.json()));
  box.dataset.ready = "1";
}

let refreshing = 0;
async function refreshLive(onlyWeb) {
  clearTimeout(refreshing);
  refreshing = setTimeout(async () => {
    const res = await send("/api/live");
    if (!res.ok) return;
    const snap = await res.json();
    const list = $("#approvals");
    if (list) list.replaceChildren(...snap.approvals.filter((a) => !onlyWeb || a.channel === "web").map(approvalCard));
    const sessions = $("#sessions");
    if (sessions) sessions.replaceChildren(...(snap.sessions.length ? snap.sessions.map(sessionView) : [el("p", "mute", "No session is open in the daemon.")]));
    await refreshSandbox();
  }, 100);
}

// The event stream, read with fetch (EventSource cannot send the key); reconnects as EventSource would.
async function events(handler) {
  for (;;) {
    try {
      const res = await send("/api/events");
      if (res.status === 401 || res.status === 403) return;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += value;
        for (let i; (i = buf.indexOf("\\n\\n")) >= 0; buf = buf.slice(i + 2)) {
          const data = buf.slice(0, i).split("\\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\\n");
          if (data) try { handler(JSON.parse(data)); } catch {}
        }
      }
    } catch {}
    await new Promise((r) => setTimeout(r, 3000));
  }
}

// A page load holds only a shell: the page is loaded again with the key, and shown.
async function load() {
  const shell = $("#shell");
  if (!shell) return start();
  if (!key) { shell.textContent = "This browser does not hold the page key of this sign-in. Run scv web in a terminal on this machine for a new sign-in link."; return; }
  try {
    const res = await send(location.href);
    if (!(res.headers.get("content-type") || "").startsWith("text/html")) throw new Error((await res.json()).error || ("HTTP " + res.status));
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    document.title = doc.title;
    document.body.replaceWith(document.importNode(doc.body, true));
    document.body.dataset.ready = "1";
    start();
  } catch (e) { shell.textContent = "This page could not be loaded: " + e.message; }
}

// A notice for the owner ([notify]): a banner on the page, and the browser's own notification when allowed.
const shown = new Set();
function showNotice(e) {
  if (e.type !== "notice" || shown.has(e.id)) return false;
  shown.add(e.id);
  let box = $("#notices");
  if (!box) { box = el("div"); box.id = "notices"; $("main").prepend(box); }
  const n = el("div", "notice", e.text);
  const close = el("button", "", "✕");
  close.title = "Dismiss";
  close.addEventListener("click", () => n.remove());
  n.prepend(close, " ");
  box.prepend(n);
  try { if (window.Notification && Notification.permission === "granted" && document.hidden) new Notification("SCV", { body: e.text.slice(0, 300), tag: e.id }); } catch {}
  return true;
}
function offerNotifications() {
  if (!window.Notification || Notification.permission !== "default" || !$("header")) return;
  const b = el("button", "", "Notify me");
  b.title = "Let this page show SCV's notices as the browser's notifications while it is open";
  b.addEventListener("click", async () => { try { await Notification.requestPermission(); } catch {} b.remove(); });
  $("header").append(b);
}

function start() {
const page = document.body.dataset.page;
offerNotifications();
if (page === "live") { refreshLive(false); events((e) => showNotice(e) || refreshLive(false)); }
else if (page !== "chat") events(showNotice);

if (page === "chat") {
  const list = $("#messages");
  const seen = new Set([...list.querySelectorAll("li[data-id]")].map((li) => li.dataset.id));
  let pending = null;
  const scroll = () => window.scrollTo(0, document.body.scrollHeight);
  const pendingBubble = () => {
    if (!pending) { pending = el("li", "scv pending"); pending.append(el("div", "text", ""), el("ul", "tools")); list.append(pending); }
    return pending;
  };
  refreshLive(true);
  events((e) => {
    if (showNotice(e)) return;
    if (e.type === "chat.reply") {
      if (seen.has(e.id)) return;
      seen.add(e.id);
      // A reply logged just before this page loaded is on it already: sent now, it is not shown twice.
      const last = [...list.querySelectorAll("li:not(.pending)")].pop();
      if (!pending && last && !last.dataset.id && ($(".text", last) || last).textContent === e.text) { last.dataset.id = e.id; return; }
      const li = pending || el("li", "scv");
      const calls = pending && $(".tools", pending);
      pending = null;
      li.className = e.author === "system" ? "system" : "scv";
      li.dataset.id = e.id;
      li.replaceChildren(el("div", "text", e.text));
      // The turn's tool calls stay under its reply, folded (as a reload shows them from the chat log).
      if (calls && calls.children.length) {
        const bad = calls.querySelectorAll("li.denied, li.failed").length;
        const d = el("details", "calls");
        d.append(el("summary", "", calls.children.length + " tool call" + (calls.children.length === 1 ? "" : "s") + (bad ? ", " + bad + " denied or failed" : "")), calls);
        li.append(d);
      }
      if (!li.parentNode) list.append(li);
      scroll();
      return;
    }
    if (e.type === "approval" || e.type === "approval.settled" || e.type === "closed") return refreshLive(true);
    if (e.type !== "notification" || e.channel !== "web") return;
    const p = e.params;
    if (e.method === "turn.started") { pendingBubble(); scroll(); }
    else if (e.method === "assistant.delta") { $(".text", pendingBubble()).textContent += p.text; scroll(); }
    else if (e.method === "tool.started") { const t = el("li", "", "… " + p.label); t.dataset.call = p.call_id; $(".tools", pendingBubble()).append(t); }
    else if (e.method === "tool.completed") {
      const t = pending && pending.querySelector('[data-call="' + CSS.escape(p.call_id) + '"]');
      if (!t) return;
      const status = p.denied ? "denied" : p.ok ? "ran" : "failed";
      const reason = p.denied ? String(p.output || "").replace(/^denied:?\\s*/i, "").split("\\n")[0].slice(0, 300) : "";
      t.className = status;
      t.textContent = (status === "denied" ? "⊘ " : status === "failed" ? "✗ " : "✓ ") + t.textContent.slice(2) + (p.display ? " (" + p.display + ")" : "") + (status === "denied" ? (p.display && p.display.includes("denied") ? "" : " — denied" + (reason ? ": " + reason : "")) : status === "failed" && !p.display ? " — failed" : "");
    }
  });
  const form = $("#send");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const box = form.elements.text;
    const text = box.value;
    if (!text.trim()) return;
    const id = crypto.randomUUID();
    const li = el("li", "owner", text);
    li.dataset.id = id;
    list.append(li);
    box.value = "";
    scroll();
    // The same ID on every attempt: the daemon queues it once however often it arrives.
    for (let attempt = 0; ; attempt++) {
      try { await post("/api/chat", { id, text }); li.classList.remove("error"); return; }
      catch (e) { li.classList.add("error"); li.title = e.message; if (attempt >= 5) return; await new Promise((r) => setTimeout(r, 500 * 2 ** attempt)); }
    }
  });
  form.elements.text.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); form.requestSubmit(); } });
  scroll();
}
}

load();
})();
`;
