// Markdown to terminal lines, one source line at a time, so a streamed reply can be committed to the
// scrollback as each line completes: the renderer keeps only the state a line needs (inside a code block or
// not). Covers what models write: headings, code blocks with a language label, lists, quotes, rules, and
// inline bold, italic, code and links. Everything is sanitised of control characters first.
import { sanitize, wrapLine } from "./text";
import type { Style as Theme } from "../terminal/style";

export interface MarkdownRenderer {
  /** Renders one complete source line (without its newline) to display lines. */
  line(source: string): string[];
  /** Renders a partial line for the live region, without changing state. */
  preview(source: string): string[];
  /** True inside a fenced code block. */
  readonly inCode: boolean;
}

export function createMarkdownRenderer(theme: Theme, width: () => number): MarkdownRenderer {
  let fence: { marker: string; lang: string } | undefined;

  function render(source: string, commit: boolean): string[] {
    const raw = sanitize(source);
    const w = Math.max(10, width());
    const fenceMatch = /^\s*(```+|~~~+)\s*([\w+#.-]*)/.exec(raw);
    if (fence) {
      if (fenceMatch && fenceMatch[1]!.startsWith(fence.marker[0]!) && fenceMatch[1]!.length >= fence.marker.length && !fenceMatch[2]) {
        if (commit) fence = undefined;
        return [theme.dim("  └─")];
      }
      return wrapLine(`  ${theme.dim("│")} ${theme.cyan(raw)}`, w, `  ${theme.dim("│")} `);
    }
    if (fenceMatch) {
      if (commit) fence = { marker: fenceMatch[1]!, lang: fenceMatch[2] ?? "" };
      return [theme.dim(`  ┌─ ${fenceMatch[2] || "code"}`)];
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) return wrapLine(theme.bold(inline(heading[2]!, theme)), w);
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) return [theme.dim("─".repeat(Math.min(w, 40)))];
    const quote = /^\s*>\s?(.*)$/.exec(raw);
    if (quote) return wrapLine(`${theme.dim("│")} ${theme.italic(inline(quote[1]!, theme))}`, w, `${theme.dim("│")} `);
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(raw);
    if (bullet) {
      const pad = " ".repeat(bullet[1]!.length);
      return wrapLine(`${pad}• ${inline(bullet[2]!, theme)}`, w, `${pad}  `);
    }
    const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(raw);
    if (numbered) {
      const pad = " ".repeat(numbered[1]!.length);
      return wrapLine(`${pad}${numbered[2]} ${inline(numbered[3]!, theme)}`, w, `${pad}${" ".repeat(numbered[2]!.length + 1)}`);
    }
    return wrapLine(inline(raw, theme), w);
  }

  return {
    line: (source) => render(source, true),
    preview: (source) => render(source, false),
    get inCode() {
      return !!fence;
    },
  };
}

/** Inline spans: `code`, **bold**, *italic* / _italic_, [text](url) shown as text (url). */
export function inline(text: string, theme: Theme): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^`([^`]+)`/.exec(rest))) {
      out += theme.cyan(m[1]!);
    } else if ((m = /^\*\*(?=\S)(.+?)\*\*/.exec(rest)) || (m = /^__(?=\S)(.+?)__/.exec(rest))) {
      out += theme.bold(m[1]!);
    } else if ((m = /^\*(?=\S)([^*]+?)\*/.exec(rest)) || (/^_/.test(rest) && !/\w$/.test(out) && (m = /^_(?=\S)([^_]+?)_(?!\w)/.exec(rest)))) {
      out += theme.italic(m[1]!);
    } else if ((m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest))) {
      out += m[1] === m[2] ? theme.underline(m[2]!) : `${theme.underline(m[1]!)} ${theme.dim(`(${m[2]})`)}`;
    } else {
      out += text[i];
      i += 1;
      continue;
    }
    i += m[0].length;
  }
  return out;
}
