// The model's markdown as Telegram messages: split into parts Telegram takes (4096 characters each) at line
// boundaries, a code block cut by a split closed and reopened, and each part rendered to Telegram's HTML
// (parse_mode "HTML": only <b> <i> <s> <code> <pre> <a> are used, and every other <, > and & is escaped).

/** Telegram's limit for one message's text, after entities are parsed. */
export const MAX_MESSAGE_CHARS = 4096;
/** Parts are cut a little shorter, so a closed and reopened code fence still fits. */
const PART_CHARS = 4000;

/** Cuts `text` into parts of at most `max` characters, at line boundaries where a line fits. */
export function splitText(text: string, max = PART_CHARS): string[] {
  const parts: string[] = [];
  let current = "";
  const push = () => {
    if (current) parts.push(current);
    current = "";
  };
  for (const line of text.split("\n")) {
    const joined = current ? `${current}\n${line}` : line;
    if (joined.length <= max) {
      current = joined;
      continue;
    }
    push();
    let rest = line;
    while (rest.length > max) {
      let cut = max;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--; // never between the halves of a surrogate pair
      parts.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    current = rest;
  }
  push();
  return balanceFences(parts);
}

const FENCE = /^\s*```([\w+-]*)/;

/** A code block a split cut in two is closed at the end of one part and reopened at the start of the next. */
function balanceFences(parts: string[]): string[] {
  let open: string | undefined;
  return parts.map((part) => {
    const start = open !== undefined ? `\`\`\`${open}\n` : "";
    for (const line of part.split("\n")) {
      const m = FENCE.exec(line);
      if (m) open = open === undefined ? m[1]! : undefined;
    }
    return `${start}${part}${open !== undefined ? "\n```" : ""}`;
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const attr = (text: string) => escapeHtml(text).replace(/"/g, "&quot;");

/** Inline markdown of one escaped line: code spans, links, bold, italic, strikethrough. */
function inline(escaped: string): string {
  const codes: string[] = [];
  let out = escaped.replace(/`([^`\n]+)`/g, (_, c: string) => `\u0000${codes.push(`<code>${c}</code>`) - 1}\u0000`);
  out = out.replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_, label: string, url: string) => `<a href="${url.replace(/"/g, "&quot;")}">${label}</a>`);
  out = out.replace(/\*\*([^*\n]+)\*\*/g, "<b>$1</b>").replace(/__([^_\n]+)__/g, "<b>$1</b>");
  out = out.replace(/(^|[\s(])\*([^*\s][^*\n]*?)\*(?=[\s.,;:!?)]|$)/g, "$1<i>$2</i>").replace(/(^|[\s(])_([^_\s][^_\n]*?)_(?=[\s.,;:!?)]|$)/g, "$1<i>$2</i>");
  out = out.replace(/~~([^~\n]+)~~/g, "<s>$1</s>");
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => codes[Number(i)]!);
}

/** One part's markdown as Telegram HTML. */
export function toHtml(markdown: string): string {
  const out: string[] = [];
  let code: { lang: string; lines: string[] } | undefined;
  for (const line of markdown.split("\n")) {
    const fence = FENCE.exec(line);
    if (fence) {
      if (code) {
        const cls = code.lang ? ` class="language-${attr(code.lang)}"` : "";
        out.push(`<pre><code${cls}>${escapeHtml(code.lines.join("\n"))}</code></pre>`);
        code = undefined;
      } else code = { lang: fence[1]!, lines: [] };
      continue;
    }
    if (code) {
      code.lines.push(line);
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
    out.push(heading ? `<b>${inline(escapeHtml(heading[1]!))}</b>` : inline(escapeHtml(line)));
  }
  if (code) out.push(`<pre>${escapeHtml(code.lines.join("\n"))}</pre>`);
  return out.join("\n");
}
