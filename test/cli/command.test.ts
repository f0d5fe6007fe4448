// The strict argument layer every scv command uses.
import { describe, expect, test } from "bun:test";
import { defineCommand, helpText, parseArgs, UsageError } from "../../src/cli/command";

const cmd = defineCommand({
  meta: { name: "exec", description: "run one turn" },
  args: {
    prompt: { type: "positional", description: "the prompt" },
    model: { type: "string", alias: "m", description: "model" },
    yes: { type: "boolean", alias: "y", description: "approve all" },
    // Adding a flag is one line:
    effort: { type: "string", valueHint: "LEVEL", description: "reasoning effort" },
  },
});
const parse = (...words: string[]): Record<string, unknown> => parseArgs(cmd, words, ["scv", "exec"]);
const refusal = (...words: string[]) => {
  try {
    parse(...words);
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  throw new Error("accepted");
};

describe("parseArgs", () => {
  test("long and short options, --name=value, and the positional", () => {
    expect(parse("-m", "gpt-x", "-y", "hello")).toEqual({ model: "gpt-x", yes: true, prompt: "hello" });
    expect(parse("--model=gpt-y", "--effort", "high", "hi")).toEqual({ model: "gpt-y", effort: "high", prompt: "hi" });
    expect(parse("-")).toEqual({ prompt: "-" });
    expect(parse("--", "--not-an-option")).toEqual({ prompt: "--not-an-option" });
  });

  test("refusals name the word", () => {
    expect(refusal("--frobnicate", "hi")).toBe('unknown option "--frobnicate"');
    expect(refusal("-x", "hi")).toBe('unknown option "-x"');
    expect(refusal("-my", "hi")).toBe('unknown option "-my"');
    expect(refusal("list", "the", "files")).toBe('unexpected argument "the"; quote a prompt of several words: scv exec "list the files"');
    expect(refusal("hi", "-m")).toBe("option -m needs a value");
    expect(refusal("--yes=no", "hi")).toBe('option --yes takes no value (got "--yes=no")');
    expect(refusal()).toBe("missing PROMPT");
  });

  test("what citty's lenient parser would take differently is refused, naming the word", () => {
    expect(refusal("--no-yes", "hi")).toBe('unknown option "--no-yes"');
    expect(refusal("--effort=high", "--Model", "x", "hi")).toBe('unknown option "--Model"');
    expect(refusal("-mgpt", "hi")).toBe('unknown option "-mgpt"');
    expect(refusal("-m=gpt", "hi")).toBe("option -m takes its value as the next word: -m gpt or --model=gpt");
    expect(refusal("-m", "--yes", "hi")).toBe('option -m needs a value (got "--yes"; write --model=--yes if that is the value)');
    expect(refusal("--model", "--no-x", "hi")).toBe('option --model needs a value (got "--no-x"; write --model=--no-x if that is the value)');
    expect(parse("--model=--no-x", "-m", "-", "--", "--no-y")).toEqual({ model: "-", prompt: "--no-y" });
    expect(parse("--model=--no-x", "hi")).toEqual({ model: "--no-x", prompt: "hi" });
  });

  test("help lists every option with its short form; colour only on a terminal", async () => {
    const plain = await helpText(cmd, ["scv", "exec"], { isTTY: false });
    expect(plain).toContain("Usage: scv exec [options] PROMPT");
    expect(plain).toContain("-m, --model MODEL");
    expect(plain).toContain("--effort LEVEL");
    expect(plain).toContain("-h, --help");
    expect(plain).not.toContain("\x1b[");
    const saved = process.env.NO_COLOR;
    delete process.env.NO_COLOR;
    try {
      expect(await helpText(cmd, ["scv", "exec"], { isTTY: true })).toContain("\x1b[1m");
    } finally {
      if (saved !== undefined) process.env.NO_COLOR = saved;
    }
  });
});
