// How items SCV adds to the history itself (a compaction summary, images tools returned) read to the model on either wire API.

/** The user-role message that stands in for the turns a summary replaced. */
export function summaryMessage(summary: string): string {
  return `[Summary of the earlier part of this session, written when it was compacted to fit the context window. The turns it replaced are no longer shown.]\n\n${summary}`;
}

/** The text before images a tool returned (an `images` history item), so the model knows where they came from. */
export function imagesIntro(about: string): string {
  return `[The image(s) returned by ${about} follow.]`;
}
