// Server-rendered HTML: every interpolated value is escaped unless it is already markup made here (`Raw`), so
// model and tool output can only ever be text on the page.
import { sha256Hex } from "../digest";
import { APP_JS, STYLE_CSS } from "./assets";

export class Raw {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

type Value = string | number | Raw | undefined | null | false | Value[];

function render(v: Value): string {
  if (v === undefined || v === null || v === false) return "";
  if (Array.isArray(v)) return v.map(render).join("");
  if (v instanceof Raw) return v.html;
  return escapeHtml(String(v));
}

/** A template whose values are escaped (arrays joined, Raw kept as is). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Raw {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Raw(out);
}

export const PAGES = [
  ["chat", "Chat"],
  ["live", "Live"],
  ["sessions", "Sessions"],
  ["usage", "Usage"],
  ["schedules", "Schedules"],
  ["memory", "Memory"],
  ["health", "Health"],
] as const;
export type PageName = (typeof PAGES)[number][0];

/** The assets' URLs carry a digest of their text: a browser never runs a cached script from another version. */
const VERSION = sha256Hex(APP_JS + STYLE_CSS).slice(0, 12);
const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/style.css?v=${VERSION}"><script src="/assets/app.js?v=${VERSION}" defer></script>`;

/** A whole page: the nav, the body, and nothing from outside this server (and no token: see `shell`). */
export function page(opts: { name: PageName | "signin"; title: string; body: Raw }): string {
  const nav = opts.name === "signin" ? "" : html`<nav>${PAGES.map(([p, label]) => html`<a href="/${p}"${p === opts.name ? new Raw(' aria-current="page"') : ""}>${label}</a>`)}</nav>`;
  return `<!doctype html>${html`<html lang="en"><head>${new Raw(HEAD)}<title>${opts.title} · SCV</title></head>
<body data-page="${opts.name}"><header><strong>SCV</strong>${nav}</header><main>${opts.body}</main></body></html>`}`;
}

/**
 * What a page load holding only the cookie gets: no data at all. The page's script loads the page again with
 * its key (X-SCV-Key) and shows it; a server on another port that replays the cookie gets this and nothing more.
 */
export function shell(): string {
  return `<!doctype html><html lang="en"><head>${HEAD}<title>SCV</title></head><body data-page="shell"><p id="shell" class="mute">Loading…</p><noscript>This page needs JavaScript.</noscript></body></html>`;
}

/** The sign-in answer, the one place the page key is handed out: the script keeps it in this origin's storage and opens the chat. */
export function signedIn(key: string): string {
  return `<!doctype html>${html`<html lang="en"><head><meta name="scv-key" content="${key}">${new Raw(HEAD)}<title>Signed in · SCV</title></head><body data-page="signin"><main><p>Signed in; opening the chat…</p><noscript>This page needs JavaScript.</noscript></main></body></html>`}`;
}
