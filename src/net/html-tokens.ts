// A small HTML tokenizer following the WHATWG tokenizer's main states: text, tags with quoted/unquoted
// attributes, comments, doctype/bogus comments, and raw-text elements (script, style, ...) whose content is
// not markup. It builds no tree. It exists because Bun's HTMLRewriter crosses into JavaScript once per text
// chunk and element: the best converter built on it measured ~175 ms on the dense 2 MiB page of
// bench/html-to-text.ts against a 100 ms budget. This runs in one pass over the string, with native
// indexOf for the common steps (the next "<", the closing ">" of a tag without quoted attributes).
// Text and attribute values are returned raw (character references undecoded).

export interface TokenSink {
  /** Raw text between tags (undecoded): `src.slice(start, end)`, passed as a range so the sink can
   * inspect it in the flat source and skip making a string for text it drops or replaces. */
  text(src: string, start: number, end: number): void;
  /** A start tag; `name` is lowercase; `attrs` holds the wanted attributes' raw values. */
  start(name: string, attrs: Attrs, selfClosing: boolean): void;
  end(name: string): void;
}

export interface Attrs {
  get(name: string): string | undefined;
}

/** Elements whose content is text up to the matching end tag (script data, raw text, RCDATA). */
const RAW_TEXT = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title", "plaintext"]);

const CLOSERS = new Map<string, RegExp>();
const NO_ATTRS: Attrs = { get: () => undefined };

function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
}

/**
 * Feeds `html` to `sink` in document order. Only the attributes `wanted` names for a tag are collected (the
 * converter reads three; building a map of every attribute of every tag would double the cost).
 */
export function tokenize(html: string, sink: TokenSink, wanted: ReadonlyMap<string, readonly string[]>): void {
  new Tokenizer(html, sink, wanted).run();
}

class Tokenizer {
  private readonly n: number;
  // Positions of the next quote characters at or after the scan point, kept so the fast tag skip stays linear.
  private nextDq = -1;
  private nextSq = -1;

  constructor(
    private readonly html: string,
    private readonly sink: TokenSink,
    private readonly wanted: ReadonlyMap<string, readonly string[]>,
  ) {
    this.n = html.length;
  }

  run(): void {
    const { html, sink, n } = this;
    let pos = 0;
    while (pos < n) {
      const lt = html.indexOf("<", pos);
      if (lt < 0) {
        sink.text(html, pos, n);
        return;
      }
      const c = html.charCodeAt(lt + 1);
      if (isAlpha(c)) {
        if (lt > pos) sink.text(html, pos, lt);
        pos = this.startTag(lt);
      } else if (c === 47 /* / */ && isAlpha(html.charCodeAt(lt + 2))) {
        if (lt > pos) sink.text(html, pos, lt);
        const i = this.nameEnd(lt + 2);
        sink.end(html.slice(lt + 2, i).toLowerCase());
        pos = this.skipTag(i).end;
      } else if (c === 33 /* ! */ || c === 63 /* ? */ || c === 47) {
        if (lt > pos) sink.text(html, pos, lt);
        if (html.startsWith("<!--", lt)) {
          const close = html.indexOf("-->", lt + 4);
          pos = close < 0 ? n : close + 3;
        } else {
          const gt = html.indexOf(">", lt + 2); // doctype, <?...>, </ > and other bogus comments
          pos = gt < 0 ? n : gt + 1;
        }
      } else {
        // A "<" that starts no markup is text.
        sink.text(html, pos, lt + 1);
        pos = lt + 1;
      }
    }
  }

  private nameEnd(i: number): number {
    const { html, n } = this;
    let c: number;
    while (i < n && !isSpace((c = html.charCodeAt(i))) && c !== 47 && c !== 62) i++;
    return i;
  }

  /** Parses the start tag at `lt`; returns the position after it (and after raw-text content, if any). */
  private startTag(lt: number): number {
    const { html, sink, n } = this;
    const i = this.nameEnd(lt + 1);
    const name = html.slice(lt + 1, i).toLowerCase();
    let end: number;
    let selfClosing: boolean;
    const names = this.wanted.get(name);
    if (names) {
      const attrs = new Map<string, string>();
      ({ end, selfClosing } = readAttributes(html, i, names, attrs));
      sink.start(name, attrs, selfClosing);
    } else {
      ({ end, selfClosing } = this.skipTag(i));
      sink.start(name, NO_ATTRS, selfClosing);
    }
    // HTML ignores the self-closing slash on these: <script/> still opens a script.
    if (!RAW_TEXT.has(name)) return end;
    if (name === "plaintext") {
      sink.text(html, end, n);
      return n;
    }
    // Content runs to "</name" followed by whitespace, "/" or ">" (any case).
    let closer = CLOSERS.get(name);
    if (!closer) CLOSERS.set(name, (closer = new RegExp(`</${name}[\\t\\n\\f\\r />]`, "gi")));
    closer.lastIndex = end;
    const m = closer.exec(html);
    const stop = m ? m.index : n;
    if (stop > end) sink.text(html, end, stop);
    if (!m) return n;
    sink.end(name);
    const gt = html.indexOf(">", stop);
    return gt < 0 ? n : gt + 1;
  }

  /**
   * Finds the end of a tag whose attributes are not needed. Only a quoted attribute value can hide a ">",
   * so when no quote comes before the next ">", that ">" ends the tag (native indexOf, no character loop).
   */
  private skipTag(i: number): { end: number; selfClosing: boolean } {
    const { html, n } = this;
    const gt = html.indexOf(">", i);
    if (gt < 0) return { end: n, selfClosing: false };
    if (this.nextDq < i && this.nextDq !== n) this.nextDq = indexOrEnd(html, '"', i);
    if (this.nextSq < i && this.nextSq !== n) this.nextSq = indexOrEnd(html, "'", i);
    if (this.nextDq > gt && this.nextSq > gt) return { end: gt + 1, selfClosing: gt > i && html.charCodeAt(gt - 1) === 47 };
    return readAttributes(html, i, NONE, undefined);
  }
}

function indexOrEnd(html: string, ch: string, from: number): number {
  const at = html.indexOf(ch, from);
  return at < 0 ? html.length : at;
}

const NONE: readonly string[] = [];

/**
 * Reads attributes from `i` to the closing ">", storing those named in `names` (lowercase) in `into`; the
 * first of a name wins. Other attributes are stepped over without making strings of them.
 */
function readAttributes(
  html: string,
  i: number,
  names: readonly string[],
  into: Map<string, string> | undefined,
): { end: number; selfClosing: boolean } {
  const n = html.length;
  let selfClosing = false;
  while (i < n) {
    let c = html.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 62 /* > */) return { end: i + 1, selfClosing };
    if (c === 47 /* / */) {
      selfClosing = html.charCodeAt(i + 1) === 62;
      i++;
      continue;
    }
    selfClosing = false;
    const nameStart = i;
    i++; // the first character may be anything (even "=")
    while (i < n && !isSpace((c = html.charCodeAt(i))) && c !== 47 && c !== 62 && c !== 61) i++;
    const key = into ? names.find((w) => sameName(html, nameStart, i, w)) : undefined;
    while (i < n && isSpace(html.charCodeAt(i))) i++;
    let valueStart = i;
    let valueEnd = i;
    if (html.charCodeAt(i) === 61 /* = */) {
      i++;
      while (i < n && isSpace(html.charCodeAt(i))) i++;
      const q = html.charCodeAt(i);
      if (q === 34 || q === 39) {
        const close = html.indexOf(q === 34 ? '"' : "'", i + 1);
        valueStart = i + 1;
        valueEnd = close < 0 ? n : close;
        i = valueEnd + 1;
      } else {
        valueStart = i;
        while (i < n && !isSpace((c = html.charCodeAt(i))) && c !== 62) i++;
        valueEnd = i;
      }
    }
    if (key && into && !into.has(key)) into.set(key, html.slice(valueStart, valueEnd));
  }
  return { end: n, selfClosing };
}

/** Whether html[start, end) is `name` (lowercase), ignoring ASCII case. */
function sameName(html: string, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let k = 0; k < name.length; k++) {
    if ((html.charCodeAt(start + k) | 0x20) !== name.charCodeAt(k)) return false;
  }
  return true;
}
