// The `Links:` block that follows a part of a page: its own module, so a tool can lay out a page it got
// without loading the HTML reader.

/** The `Links:` block for the links whose `[n]` markers appear in `text`, in number order. */
export function linksFor(text: string, links: string[]): string {
  if (!links.length) return "";
  const seen = new Set<number>();
  for (const m of text.matchAll(/\[(\d{1,6})\]/g)) {
    const n = Number(m[1]);
    if (n >= 1 && n <= links.length) seen.add(n);
  }
  if (!seen.size) return "";
  return "Links:\n" + [...seen].sort((a, b) => a - b).map((n) => `[${n}] ${links[n - 1]}`).join("\n");
}
