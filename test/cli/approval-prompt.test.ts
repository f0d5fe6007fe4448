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

// A stream that says it is a terminal, recording the raw-mode switches.
function terminalInput() {
  const input = new PassThrough() as unknown as NodeJS.ReadStream & { modes: boolean[] };
  Object.assign(input, { isTTY: true, modes: [] as boolean[] });
  input.setRawMode = (mode: boolean) => {
    input.modes.push(mode);
    return input;
  };
  return input;
}

test("on a terminal one key answers without Enter, and the terminal leaves raw mode", async () => {
  const input = terminalInput();
  let output = "";
  const answer = askApproval("Allow? ", { input, output: { write: (s: string) => (output += s) } }, undefined, { rules: true });
  (input as unknown as PassThrough).write("p");
  expect(await answer).toBe("workspace-rule");
  expect(output).toBe("Allow? p\n");
  await Bun.sleep(500); // the moment kept for a habitual Enter
  expect(input.modes).toEqual([true, false]);
});

test("on a terminal an Enter typed out of habit after the key is not the next question's answer", async () => {
  const input = terminalInput();
  const io = { input, output: { write: () => {} } };
  const first = askApproval("Allow? ", io);
  (input as unknown as PassThrough).write("y");
  expect(await first).toBe("yes");
  const second = askApproval("Allow again? ", io);
  (input as unknown as PassThrough).write("\r");
  (input as unknown as PassThrough).write("a");
  expect(await second).toBe("always");
});

test("on a terminal another key asks again and Ctrl-C still interrupts", async () => {
  const input = terminalInput();
  let output = "";
  const answer = askApproval("Allow? ", { input, output: { write: (s: string) => (output += s) } });
  (input as unknown as PassThrough).write("x");
  (input as unknown as PassThrough).write("\x03");
  expect(await answer).toBe("interrupt");
  expect(output).toContain("Please answer y (yes)");
  expect(input.modes).toEqual([true, false]);
});

test("s (some of them) is an answer only where offered, for a request listing several MCP servers", async () => {
  const input = new PassThrough() as unknown as NodeJS.ReadStream;
  let output = "";
  const offered = askApproval("Allow? ", { input, output: { write: (s: string) => (output += s) } }, undefined, { some: true });
  (input as unknown as PassThrough).write("s\r");
  expect<string>(await offered).toBe("some");
  const { answer, output: again } = await ask("s\r", "n\r");
  expect(answer).toBe("no");
  expect(again).toContain("Please answer y (yes), n (no) or a (always for identical calls)");
});

test("the exec card says where an MCP connection's 'always' is kept, and offers s for several servers", async () => {
  const { createExecRenderer } = await import("../../src/cli/exec-render");
  const quiet = { write: () => true, isTTY: false } as any;
  const render = createExecRenderer({ stdout: quiet, stderr: quiet, json: false, env: { NO_COLOR: "1" } });
  const one = render.approvalCard({ tool: "mcp.connect:alpha", risk: "process", summary: 'connect to MCP server "alpha"', rememberable: true });
  expect(one).toContain("always, kept for this workspace");
  expect(one).not.toContain("identical calls");
  const two = render.approvalCard({ tool: "mcp.connect", risk: "process", summary: "connect to 2 MCP servers:", rememberable: true, choices: ["alpha", "beta"] });
  expect(two).toContain("yes, all");
  expect(two).toContain("some of them (2, asked one by one) [y/N/a/s]");
  expect(render.approvalCard({ tool: "write", risk: "filesystem", summary: "write x" })).toContain("always for identical calls in this run [y/N/a]");
});
