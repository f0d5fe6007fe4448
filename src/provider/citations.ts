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
    if (reply.includes(url)) continue;
    const title = c.title?.replace(/\s+/g, " ").trim();
    lines.push(title ? `- ${title}: ${url}` : `- ${url}`);
  }
  if (lines.length === 0) return reply;
  const sep = reply === "" ? "" : reply.endsWith("\n\n") ? "" : reply.endsWith("\n") ? "\n" : "\n\n";
  return `${reply}${sep}Sources:\n${lines.join("\n")}`;
}
