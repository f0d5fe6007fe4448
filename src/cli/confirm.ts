// A yes/no question on the terminal, for commands that change what cannot be taken back without asking.

/** One line from the terminal: true for y or yes. */
export async function confirm(question: string): Promise<boolean> {
  process.stderr.write(question);
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin });
  const answer = await new Promise<string>((resolve) => {
    rl.once("line", resolve);
    rl.once("close", () => resolve(""));
  });
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}
