// Hosted web search answers cite URLs through annotations; the user should see every source even when the
// model's text did not link it, so the reply gets a `Sources:` list of the cited URLs it does not contain.

export interface Citation {
  url: string;
  title?: string;
}

/** `reply` plus a `Sources:` list (`- title: url`) for each distinct cited URL the reply does not already contain. */
export function withSources(reply: string, citations: readonly Citation[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of citations) {
    const url = c.url.trim();
    if (!url || seen.has(url)) continue;
    seen.add(url);
    if (linksTo(reply, url)) continue;
    const title = c.title?.replace(/\s+/g, " ").trim();
    lines.push(title ? `- ${title}: ${url}` : `- ${url}`);
  }
  if (lines.length === 0) return reply;
  const sep = reply === "" ? "" : reply.endsWith("\n\n") ? "" : reply.endsWith("\n") ? "\n" : "\n\n";
  return `${reply}${sep}Sources:\n${lines.join("\n")}`;
}

/** Characters that may follow a URL in prose or markup without being part of it. */
const CLOSERS = new Set([")", "]", ">", "\"", "'", "<", "`", "*", "|"]);
const TRAILING_PUNCTUATION = /[.,;:!?]/;

/**
 * Whether `reply` contains `url` as a whole link, not just as the start of a longer one
 * (`https://a.example/` is not linked by `https://a.example/docs`).
 */
function linksTo(reply: string, url: string): boolean {
  for (let at = reply.indexOf(url); at >= 0; at = reply.indexOf(url, at + 1)) {
    const next = reply[at + url.length];
    if (next === undefined || /\s/.test(next) || CLOSERS.has(next)) return true;
    // Sentence punctuation right after a URL ends it when nothing URL-like follows the punctuation.
    if (TRAILING_PUNCTUATION.test(next)) {
      const after = reply[at + url.length + 1];
      if (after === undefined || /\s/.test(after) || CLOSERS.has(after)) return true;
    }
  }
  return false;
}
