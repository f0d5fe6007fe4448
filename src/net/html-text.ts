// HTML -> readable plain text with numbered link references. Structure becomes line and paragraph breaks,
// "# " headings, "- " list items and " | " between table cells; script/style/template/svg and similar are
// dropped; <pre> and <textarea> keep their whitespace. Links to http(s) URLs (relative ones resolved against
// the page, or its <base>) get a `[n]` marker; javascript:, data:, mailto: and same-page anchors get none.
//
// Whitespace is collapsed as HTML renders it (ASCII whitespace only, so &nbsp; survives) while the text is
// written; each text run's character references are decoded once, after collapsing (so `&amp;lt;` comes
// out as `&lt;`). The tokenizer (html-tokens.ts) replaced Bun's HTMLRewriter to meet the 2 MiB / 100 ms
// budget.
import { decodeEntities } from "./entities";
import { type Attrs, tokenize } from "./html-tokens";

export { linksFor } from "./links";

export interface HtmlText {
  /** The document title, if any. */
  title: string;
  /** Body text; each link is followed by `[n]`, where n is its 1-based index in `links`. */
  text: string;
  /** Absolute http(s) URLs, deduplicated. */
  links: string[];
}

const SKIP = new Set(["script", "style", "noscript", "template", "svg", "math", "iframe", "object", "select", "title", "noembed", "noframes"]);
const PRE = new Set(["pre", "textarea", "listing", "plaintext"]);
const PARAGRAPH = new Set([
  "p", "pre", "blockquote", "table", "ul", "ol", "dl", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "div",
  "section", "article", "header", "footer", "main", "nav", "aside", "form", "fieldset", "details", "textarea", "listing",
]);
const LINE_BREAK = new Set([
  "address", "body", "caption", "center", "dd", "dialog", "dt", "figcaption", "hgroup", "li", "summary", "tr",
  "br", "legend", "option", "hr", "menu", "dir", "frameset", "optgroup",
]);
const FOREIGN = new Set(["svg", "math"]);
/** The only attributes the converter reads. */
const WANTED = new Map<string, readonly string[]>([
  ["a", ["href"]],
  ["img", ["alt"]],
  ["base", ["href"]],
]);

/**
 * Builds the text. Whitespace is collapsed per chunk (and only for chunks that need it); breaks are held as
 * pending until real text follows, so they never pile up; a chunk's own leading or trailing space is kept
 * unless it would double a space or touch a line break. So the output needs no clean-up pass afterwards.
 * Text is inspected in the flat source by index: slicing first made every run a substring that the engine
 * had to materialise on first access, which cost more than the rest of the writer.
 */
class Writer {
  readonly parts: string[] = [];
  private pending = 0; // 0 none, 1 line break, 2 paragraph break
  private prefix = ""; // "- " or "## ", written after the pending break
  private endsInSpace = true; // the output ends in a space or nothing, so a leading space is dropped
  private textSpace = false; // the last part is text ending in a space, which a break or marker removes
  private started = false;

  brk(level: 1 | 2, prefix = ""): void {
    if (level > this.pending) this.pending = level;
    if (prefix) this.prefix = prefix;
  }

  private dropTrailingSpace(): void {
    if (!this.textSpace) return;
    const last = this.parts.length - 1;
    this.parts[last] = this.parts[last]!.slice(0, -1);
    this.textSpace = false;
  }

  /** Writes a pending break (and list or heading prefix) before new text. */
  private flush(): void {
    if (!this.pending) return;
    if (this.started) {
      this.dropTrailingSpace();
      this.parts.push(this.pending === 2 ? "\n\n" : "\n");
    }
    if (this.prefix) this.parts.push(this.prefix);
    this.pending = 0;
    this.prefix = "";
    this.endsInSpace = true;
    this.textSpace = false;
  }

  /** Text `src[start, end)`; whitespace is looked at in place, so blank runs never become strings. */
  text(src: string, start: number, end: number): void {
    const kind = scanWhitespace(src, start, end);
    if (kind === BLANK) {
      if (!this.pending && !this.endsInSpace) {
        this.parts.push(" ");
        this.endsInSpace = this.textSpace = true;
      }
      return;
    }
    let raw = src.slice(start, end);
    if (kind === COLLAPSE) raw = raw.replace(/[\t\n\r\f ]+/g, " ");
    this.add(raw);
  }

  /** Generated text (image alt), handled like page text. */
  textString(raw: string): void {
    this.text(raw, 0, raw.length);
  }

  private add(raw: string): void {
    this.flush();
    if (this.endsInSpace && raw.charCodeAt(0) === 32) raw = raw.slice(1);
    // A text run is whole here (the tokenizer never splits one), so its references decode on their own.
    if (raw.includes("&")) raw = decodeEntities(raw);
    if (!raw) return;
    this.parts.push(raw);
    this.endsInSpace = this.textSpace = raw.charCodeAt(raw.length - 1) === 32;
    this.started = true;
  }

  /** Preformatted text, kept as it is. */
  pre(raw: string): void {
    this.flush();
    this.parts.push(raw.includes("&") ? decodeEntities(raw) : raw);
    this.endsInSpace = this.textSpace = false;
    this.started = true;
  }

  /** A table cell boundary: a separator between cells of one row, nothing at a row's start. */
  cell(): void {
    if (this.started && !this.pending) {
      this.dropTrailingSpace();
      this.parts.push(" | ");
      this.endsInSpace = true;
      this.textSpace = false;
    }
  }

  /** A link's [n]: sticks to the text before it, even if a break is pending. */
  attach(marker: string): void {
    const hadSpace = this.endsInSpace && !this.pending && this.started;
    this.dropTrailingSpace();
    this.parts.push(hadSpace ? `${marker} ` : marker);
    this.endsInSpace = hadSpace;
    this.textSpace = false;
    this.started = true;
  }
}

const PLAIN = 0;
const BLANK = 1;
const COLLAPSE = 2;

/** BLANK for whitespace only, COLLAPSE for whitespace other than single spaces, PLAIN otherwise. */
function scanWhitespace(s: string, start: number, end: number): number {
  let blank = true;
  let collapse = false;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) {
      if (!collapse && i + 1 < end && s.charCodeAt(i + 1) === 32) collapse = true;
    } else if (c === 10 || c === 9 || c === 13 || c === 12) {
      collapse = true;
    } else {
      blank = false;
      if (collapse) return COLLAPSE;
    }
  }
  return blank ? BLANK : collapse ? COLLAPSE : PLAIN;
}

export function htmlToText(html: string, baseUrl: string | URL): HtmlText {
  const w = new Writer();
  const links: string[] = [];
  const linkIndex = new Map<string, number>();
  const hrefCache = new Map<string, number | undefined>(); // raw href -> link number (pages repeat links)
  let base = new URL(baseUrl);
  let baseSet = false;
  const skipped: string[] = []; // open skipped elements; text is dropped while any is open
  let pre = 0;
  let title = "";
  let inTitle = false;
  let titleDone = false;
  let openLink: number | undefined;

  const closeLink = () => {
    if (openLink !== undefined) w.attach(`[${openLink}]`);
    openLink = undefined;
  };

  function linkNumber(rawHref: string | undefined): number | undefined {
    if (rawHref === undefined) return undefined;
    if (hrefCache.has(rawHref)) return hrefCache.get(rawHref);
    const n = resolveLink(rawHref);
    hrefCache.set(rawHref, n);
    return n;
  }

  function resolveLink(rawHref: string): number | undefined {
    const href = decodeEntities(rawHref).trim();
    if (!href || href.startsWith("#")) return undefined; // a same-page anchor adds nothing
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return undefined;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined; // javascript:, data:, mailto: ...
    const abs = url.href;
    let n = linkIndex.get(abs);
    if (n === undefined) {
      links.push(abs);
      n = links.length;
      linkIndex.set(abs, n);
    }
    return n;
  }

  function start(name: string, attrs: Attrs, selfClosing: boolean) {
    if (SKIP.has(name)) {
      if (name === "title" && !titleDone && !skipped.length) inTitle = true;
      // Only foreign elements (svg, math) honour a self-closing slash; <select/> still opens a select.
      if (!selfClosing || !FOREIGN.has(name)) skipped.push(name);
      return;
    }
    if (skipped.length) return;
    if (PARAGRAPH.has(name)) {
      w.brk(2, name.length === 2 && name[0] === "h" ? `${"#".repeat(Number(name[1]) || 1)} ` : "");
      if (PRE.has(name)) pre++;
    } else if (LINE_BREAK.has(name)) {
      w.brk(1, name === "li" ? "- " : "");
    } else if (name === "td" || name === "th") {
      w.cell();
    } else if (name === "a") {
      closeLink(); // an <a> inside an open <a> closes it, as HTML parsing does
      openLink = linkNumber(attrs.get("href"));
    } else if (name === "img") {
      const alt = attrs.get("alt")?.trim();
      if (alt) w.textString(` [image: ${alt}] `); // collapsed and decoded like page text
    } else if (name === "base" && !baseSet) {
      baseSet = true;
      hrefCache.clear();
      const href = attrs.get("href");
      try {
        if (href !== undefined) base = new URL(decodeEntities(href).trim(), base);
      } catch {}
    } else if (PRE.has(name)) {
      pre++;
    }
  }

  function end(name: string) {
    if (skipped.length) {
      const at = skipped.lastIndexOf(name);
      if (at >= 0) skipped.length = at;
      if (name === "title" && inTitle) {
        inTitle = false;
        titleDone = true;
      }
      return;
    }
    if (PRE.has(name) && pre > 0) pre--;
    if (PARAGRAPH.has(name)) w.brk(2);
    else if (name === "a") closeLink();
    else if (LINE_BREAK.has(name) && name !== "li" && name !== "br") w.brk(1);
  }

  function text(src: string, from: number, to: number) {
    if (skipped.length) {
      if (inTitle) title += src.slice(from, to);
    } else if (pre) w.pre(src.slice(from, to));
    else w.text(src, from, to);
  }

  tokenize(html, { start, end, text }, WANTED);
  closeLink();

  const body = w.parts.join("").trimEnd();
  return { title: decodeEntities(title).replace(/\s+/g, " ").trim(), text: body.trim(), links };
}
