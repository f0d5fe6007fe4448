// `@` in the prompt: a fuzzy picker over the workspace's files (what .gitignore and .ignore leave, no secret-like
// paths, the same walk grep and glob use), and on sending, each mentioned file attached to the prompt: its text
// inlined when small, else a note that the model can read it with `read`.
import { realpathSync } from "node:fs";
import { walkWorkspace } from "../fs/workspace-walk";
import { readBoundedPrefix } from "../fs/safe-read";
import type { Style as Theme } from "../terminal/style";
import type { Key } from "./keys";
import { sanitize, truncate } from "./text";

/** Files listed at most: a picker over a huge tree stays quick and small. */
const MAX_FILES = 20_000;
const SHOWN = 8;
/** A mentioned file up to this size is inlined into the prompt; a larger one is named for the model to read. */
export const INLINE_BYTES = 8 * 1024;

/** The workspace's files, relative, in walk order (computed once per picker). */
export function workspaceFiles(workspace: string): string[] {
  const root = realpathSync(workspace);
  const files: string[] = [];
  for (const f of walkWorkspace({ workspace: root, start: root, includeSecretLike: false, stop: () => files.length >= MAX_FILES })) files.push(f.rel);
  return files;
}

/**
 * How well `query` matches `path` as a subsequence, higher is better, or -1: consecutive letters, letters at the start
 * of a path segment and a match in the file name count more; shorter paths win ties.
 */
export function fuzzyScore(query: string, path: string): number {
  if (!query) return 1000 - path.length;
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  const nameStart = p.lastIndexOf("/") + 1;
  let score = 0;
  let at = -1;
  for (const ch of q) {
    const next = p.indexOf(ch, at + 1);
    if (next < 0) return -1;
    score += next === at + 1 ? 5 : 1;
    if (next === 0 || p[next - 1] === "/" || p[next - 1] === "." || p[next - 1] === "-" || p[next - 1] === "_") score += 3;
    if (next >= nameStart) score += 2;
    at = next;
  }
  return score * 100 - path.length;
}

/** The word being typed when it is a mention: `@` at the start or after a space, up to the cursor. */
export function mentionAt(textBeforeCursor: string): string | undefined {
  const m = /(?:^|\s)@([^\s@]*)$/.exec(textBeforeCursor);
  return m ? m[1] : undefined;
}

export type PickerResult = { kind: "pick"; path: string } | { kind: "close" } | undefined;

export class FilePicker {
  private index = 0;
  private matches: string[] = [];
  private query: string | undefined;

  constructor(private readonly files: readonly string[]) {}

  /** Nothing matches: Enter sends the prompt rather than picking. */
  get empty(): boolean {
    return this.matches.length === 0;
  }

  /** Filters to the mention being typed; false when there is none (the picker hides). */
  update(query: string | undefined): boolean {
    if (query === undefined) return false;
    if (query !== this.query) {
      this.query = query;
      this.index = 0;
      this.matches = this.files
        .map((f) => ({ f, s: fuzzyScore(query, f) }))
        .filter((m) => m.s >= 0)
        .sort((a, b) => b.s - a.s)
        .slice(0, SHOWN)
        .map((m) => m.f);
    }
    return true;
  }

  lines(theme: Theme, width: number): string[] {
    if (!this.matches.length) return [truncate(theme.dim(`  no file matches @${sanitize(this.query ?? "")}`), width)];
    return [
      ...this.matches.map((f, i) => truncate(i === this.index ? theme.cyan(`› ${sanitize(f)}`) : `  ${sanitize(f)}`, width)),
      truncate(theme.dim("  Up/Down choose · Tab or Enter mention it · Esc close"), width),
    ];
  }

  key(key: Key): PickerResult {
    const n = this.matches.length;
    if (key.kind === "escape") return { kind: "close" };
    if (!n) return undefined;
    if (key.kind === "up") this.index = (this.index + n - 1) % n;
    else if (key.kind === "down") this.index = (this.index + 1) % n;
    else if (key.kind === "tab" || key.kind === "enter") return { kind: "pick", path: this.matches[this.index]! };
    return undefined;
  }
}

/**
 * The prompt with each `@path` naming a workspace file attached: small text files inlined in a fenced block, others
 * named for the model to read. Paths that are no file are left as words.
 */
export function attachMentions(prompt: string, workspace: string): { prompt: string; attached: string[] } {
  const root = realpathSync(workspace);
  const attached: string[] = [];
  const blocks: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    const rel = m[1]!.replace(/[.,;:!?)]+$/, "");
    if (attached.includes(rel) || rel.startsWith("/") || rel.split("/").includes("..")) continue;
    let bytes: Buffer;
    let truncated: boolean;
    try {
      ({ bytes, truncated } = readBoundedPrefix(`${root}/${rel}`, { what: "mentioned file", maxBytes: INLINE_BYTES, within: root }));
    } catch {
      continue; // not a file in the workspace: just a word
    }
    attached.push(rel);
    const text = bytes.toString("utf8");
    if (truncated || bytes.includes(0) || text.includes("\uFFFD")) blocks.push(`(@${rel} is a file in the workspace, larger than ${INLINE_BYTES / 1024} KiB or not text: read it with the read tool if you need it)`);
    else blocks.push(`<file path="${rel}">\n${text}${text.endsWith("\n") ? "" : "\n"}</file>`);
  }
  if (!blocks.length) return { prompt, attached };
  return { prompt: `${prompt}\n\n${blocks.join("\n\n")}`, attached };
}
