// `clarify` through the compiled binary against the scripted model: answered in a real terminal (a choice by its
// number, the person's own words), answered at once on a pipe, timing out to "no answer", and refused input.
import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fakeHome, fakeModelForEachTest, requireBinary, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { closeAllTerminals, openTerminal, type Terminal } from "../fake/tmux";
import { questionCard } from "../../src/cli/exec-clarify";
import { answerFromText } from "../../src/tools/clarify";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);
const fake = fakeModelForEachTest();
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});
afterAll(closeAllTerminals);

const ask = (question: string, choices?: string[]) => toolCalls([{ name: "clarify", arguments: { question, ...(choices ? { choices } : {}) } }]);

/** The tool result the model got for its clarify call (the request after the call). */
function clarifyResult(): string {
  for (const r of fake.requests) {
    for (const item of r.body?.input ?? []) if (item.type === "function_call_output") return String(item.output);
  }
  throw new Error(`no tool result was sent; requests: ${fake.requests.length}`);
}

describe("reading an answer", () => {
  test("a number picks that choice, other words stand as typed, an empty line is no answer", () => {
    const choices = ["red", "blue"];
    expect(answerFromText("2", choices)).toBe("blue");
    expect(answerFromText(" 1 \r", choices)).toBe("red");
    expect(answerFromText("3", choices)).toBe("3");
    expect(answerFromText("green, please", choices)).toBe("green, please");
    expect(answerFromText("   ", choices)).toBeUndefined();
    expect(answerFromText("2", undefined)).toBe("2");
    expect(questionCard({ question: "Which colour?", choices })).toBe("? Which colour?\n  1) red\n  2) blue\nanswer (a number, your own words, or Enter to skip): ");
  });
});

describe.skipIf(!needs("tmux"))("scv exec on a terminal", () => {
  function exec(prompt: string, extraConfig = "") {
    const h = fakeHome(fake.url, extraConfig);
    term = openTerminal([requireBinary(), "exec", prompt], { env: h.env, cwd: h.workspace });
    return term;
  }

  test("the question and its choices are shown on stderr; a choice's number answers it", async () => {
    fake.queue(ask("Which colour should the button be?", ["red", "blue", "green"]), text("making it blue"));
    const t = exec("style the button");
    await t.waitFor("answer (a number, your own words, or Enter to skip):");
    expect(t.screen()).toContain("? Which colour should the button be?\n  1) red\n  2) blue\n  3) green\n");
    t.type("2");
    t.keys("Enter");
    expect(await t.exitCode()).toBe(0);
    expect(t.screen()).toContain("making it blue");
    expect(clarifyResult()).toBe("The person answered: blue");
    // The question is offered to the model as a tool, and what was typed never became a new prompt.
    expect(fake.requests[0]!.body.tools.map((x: { name: string }) => x.name)).toContain("clarify");
    expect(fake.requests.length).toBe(2);
  });

  test("the person's own words answer it", async () => {
    fake.queue(ask("Which colour?", ["red", "blue"]), text("ok"));
    const t = exec("style it");
    await t.waitFor("answer (");
    t.type("a dark teal");
    t.keys("Enter");
    expect(await t.exitCode()).toBe(0);
    expect(clarifyResult()).toBe("The person answered: a dark teal");
  });

  test("nobody answering within tools.clarify_timeout_seconds: the turn goes on with no answer", async () => {
    fake.queue(ask("Deploy to staging or production?"), text("went on without an answer"));
    const t = exec("deploy", "[tools]\nclarify_timeout_seconds = 1\n");
    await t.waitFor("answer (your answer, or Enter to skip):");
    expect(await t.exitCode(15_000)).toBe(0);
    expect(t.screen()).toContain("went on without an answer");
    expect(clarifyResult()).toContain("No answer came within");
    expect(clarifyResult()).toContain("go on with your best judgement");
  });
});

describe("scv exec on a pipe", () => {
  test("nobody can answer: the question is answered at once and the turn goes on", async () => {
    fake.queue(ask("Which colour?", ["red", "blue"]), text("picked red myself"));
    const h = fakeHome(fake.url);
    const started = performance.now();
    const r = await runBinary(["exec", "--json", "style it"], h.env, h.workspace);
    const ms = performance.now() - started;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("picked red myself");
    expect(clarifyResult()).toStartWith("Nobody can answer questions here");
    const answered = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.method === "clarify.answered");
    expect(answered?.params.by).toBe("nobody");
    // Never waits for anyone: far below the 30-minute bound (a generous ceiling for a loaded machine).
    expect(ms).toBeLessThan(15_000);
  });

  test("a question with more than 4 choices, or an empty one, is a tool error naming the limit", async () => {
    fake.queue(ask("Pick", ["a", "b", "c", "d", "e"]), ask("   "), text("done"));
    const h = fakeHome(fake.url);
    const r = await runBinary(["exec", "--json", "pick"], h.env, h.workspace);
    expect(r.code).toBe(0);
    const outputs = fake.requests.flatMap((q) => (q.body?.input ?? []).filter((i: any) => i.type === "function_call_output").map((i: any) => String(i.output)));
    expect(outputs.some((o) => o.includes("at most 4 choices"))).toBe(true);
    expect(outputs.some((o) => o.includes("must not be empty"))).toBe(true);
  });
});
