// How a compaction summary (a `summary` history item) is presented to the model on either wire API.

/** The user-role message that stands in for the turns a summary replaced. */
export function summaryMessage(summary: string): string {
  return `[Summary of the earlier part of this session, written when it was compacted to fit the context window. The turns it replaced are no longer shown.]\n\n${summary}`;
}
