// Markdown to terminal lines, one source line at a time, so a streamed reply can be committed to the
// scrollback as each line completes: the renderer keeps only the state a line needs (inside a code block or
// not, the rows of a table so far). Covers what models write: headings, code blocks with a language label, lists,
// quotes, rules, tables (aligned once the table ends, cut to the width) and inline bold, italic, code and links.
// Everything is sanitised of control characters first.
import { displayWidth, sanitize, truncate, wrapLine } from "./text";
import type { Style as Theme } from "../terminal/style";

export interface MarkdownRenderer {
  /** Renders one complete source line (without its newline) to display lines. */
  line(source: string): string[];
  /** Renders a partial line for the live region, without changing state. */
  preview(source: string): string[];
  /** What is held back (a table whose end has not come yet), rendered; the state is cleared. */
  flush(): string[];
  /** What is held back, rendered for the live region, without changing state. */
  pending(): string[];
  /** True inside a fenced code block. */
  readonly inCode: boolean;
}

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** A table's cells per row: the outer pipes dropped, `\|` kept as a pipe. */
function tableCells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

/**
 * A table's rows with every column as wide as its widest cell; when that is wider than `width`, the widest columns
 * give way first (to 3 columns at least) and cells cut with an ellipsis.
 */
export function renderTable(rows: string[], width: number, theme: Theme): string[] {
  const body = rows.filter((r) => !TABLE_RULE.test(r)).map((r) => tableCells(r).map((c) => inline(c, theme)));
  const hasHeader = rows.length > 1 && TABLE_RULE.test(rows[1]!);
  const columns = Math.max(...body.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(1, ...body.map((r) => displayWidth(r[i] ?? ""))));
  const sep = " │ ";
  const total = () => widths.reduce((a, b) => a + b, 0) + sep.length * (columns - 1);
  while (total() > width) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 3) break;
    widths[widest]!--;
  }
  const line = (cells: string[]) =>
    truncate(
      widths
        .map((w, i) => {
          const cell = truncate(cells[i] ?? "", w);
          return cell + " ".repeat(Math.max(0, w - displayWidth(cell)));
        })
        .join(theme.dim(sep))
        .trimEnd(),
      width,
    );
  const out: string[] = [];
  body.forEach((cells, i) => {
    out.push(i === 0 && hasHeader ? theme.bold(line(cells)) : line(cells));
    if (i === 0 && hasHeader) out.push(theme.dim(truncate(widths.map((w) => "─".repeat(w)).join("─┼─"), width)));
  });
  return out;
}

export function createMarkdownRenderer(theme: Theme, width: () => number): MarkdownRenderer {
  let fence: { marker: string; lang: string } | undefined;
  let table: string[] = [];

  function flush(): string[] {
    if (!table.length) return [];
    const rows = table;
    table = [];
    return renderTable(rows, Math.max(10, width()), theme);
  }

  function render(source: string, commit: boolean): string[] {
    const raw = sanitize(source);
    const w = Math.max(10, width());
    // Table rows are held until the table ends, so its columns can be aligned; the live region shows them so far.
    if (!fence && (TABLE_ROW.test(raw) || (table.length === 1 && TABLE_RULE.test(raw)))) {
      if (commit) {
        table.push(raw);
        return [];
      }
      return renderTable([...table, raw], w, theme);
    }
    if (table.length) {
      if (!commit) return [...renderTable(table, w, theme), ...renderLine(raw, w, false)];
      return [...flush(), ...renderLine(raw, w, true)];
    }
    return renderLine(raw, w, commit);
  }

  function renderLine(raw: string, w: number, commit: boolean): string[] {
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
    flush,
    pending: () => (table.length ? renderTable(table, Math.max(10, width()), theme) : []),
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
