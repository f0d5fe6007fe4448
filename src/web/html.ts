// Server-rendered HTML: every interpolated value is escaped unless it is already markup made here (`Raw`), so
// model and tool output can only ever be text on the page.
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

/** A whole page: the nav, the body, the CSRF token for the script, and nothing from outside this server. */
export function page(opts: { name: PageName | "signin"; title: string; csrf?: string; body: Raw }): string {
  const nav = opts.name === "signin" ? "" : html`<nav>${PAGES.map(([p, label]) => html`<a href="/${p}"${p === opts.name ? new Raw(' aria-current="page"') : ""}>${label}</a>`)}</nav>`;
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · SCV</title>${opts.csrf ? html`<meta name="csrf" content="${opts.csrf}">` : ""}<link rel="stylesheet" href="/assets/style.css"><script src="/assets/app.js" defer></script></head>
<body data-page="${opts.name}"><header><strong>SCV</strong>${nav}</header><main>${opts.body}</main></body></html>`}`;
}
