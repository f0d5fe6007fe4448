// The approval question's answers, byte by byte (the tmux tests drive the same code in a real terminal).
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { askApproval } from "../../src/cli/approval-prompt";

async function ask(...chunks: string[]) {
  const input = new PassThrough() as unknown as NodeJS.ReadStream;
  let output = "";
  const answer = askApproval("Allow? ", { input, output: { write: (s: string) => (output += s) } });
  for (const c of chunks) (input as unknown as PassThrough).write(c);
  return { answer: await answer, output };
}

test.each([
  ["y\r", "yes"],
  ["YES\n", "yes"],
  ["\r", "no"],
  ["no\r", "no"],
  ["a\r", "always"],
  ["\x03", "interrupt"],
  ["ye\x03", "interrupt"],
  ["\x04", "eof"],
  ["x\x7f\x7fy\r", "yes"],
])("%j answers %s", async (typed, expected) => {
  expect<string>((await ask(typed)).answer).toBe(expected);
});

test("any other answer asks again", async () => {
  const { answer, output } = await ask("maybe\r", "n\r");
  expect(answer).toBe("no");
  expect(output).toContain("Please answer y (yes), n (no) or a (always for identical calls)");
});

test("an aborted signal (Ctrl-C as a signal) ends the question", async () => {
  const input = new PassThrough() as unknown as NodeJS.ReadStream;
  const ctl = new AbortController();
  const answer = askApproval("Allow? ", { input, output: { write: () => {} } }, ctl.signal);
  ctl.abort();
  expect(await answer).toBe("interrupt");
});
