// The model's question (clarify) in the interactive session, driven in tmux against the scripted model: a choice
// picked with the arrow keys, an answer typed in one's own words, Esc to skip; what is typed never becomes a prompt.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);

let fake: FakeModel | undefined;
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

async function open() {
  fake = await startFakeModel();
  const h = fakeHome(fake.url);
  pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace, width: 100, height: 30 });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  return { fake, pane };
}

const ask = (question: string, choices?: string[]) => toolCalls([{ name: "clarify", arguments: { question, ...(choices ? { choices } : {}) } }]);

function clarifyOutputs(f: FakeModel): string[] {
  const input = f.requests.at(-1)!.body.input as any[];
  return input.filter((i) => i.type === "function_call_output").map((i) => String(i.output));
}

describe.skipIf(!needs("tmux"))("a question in the terminal", () => {
  test("Down then Enter picks the second choice; the answer reaches the model, not the prompt", async () => {
    const { fake, pane } = await open();
    fake.queue(ask("Which database?", ["SQLite", "PostgreSQL", "none"]), text("Going with PostgreSQL."));
    pane.type("set up storage");
    pane.keys("Enter");
    await pane.waitFor("Enter sends · Esc skips the question");
    expect(pane.screen()).toContain("? Which database?\n› 1) SQLite\n  2) PostgreSQL\n  3) none");
    pane.keys("Down");
    pane.keys("Enter");
    await pane.waitFor("Going with PostgreSQL.");
    expect(pane.screen()).toContain("? Which database? → PostgreSQL");
    expect(clarifyOutputs(fake)).toEqual(["The person answered: PostgreSQL"]);
    expect(fake.requests.length).toBe(2);
  });

  test("an answer typed in one's own words, then a question skipped with Esc", async () => {
    const { fake, pane } = await open();
    fake.queue(ask("Which port?", ["3000", "8080"]), ask("Anything else?"), text("Noted."));
    pane.type("serve it");
    pane.keys("Enter");
    await pane.waitFor("or type an answer:");
    pane.type("4000 please");
    pane.keys("Enter");
    await pane.waitFor("Anything else?");
    pane.keys("Escape");
    await pane.waitFor("Noted.");
    expect(pane.screen()).toContain("? Which port? → 4000 please");
    expect(pane.screen()).toContain("? Anything else? (skipped)");
    const outputs = clarifyOutputs(fake);
    expect(outputs[0]).toBe("The person answered: 4000 please");
    expect(outputs[1]).toContain("The person chose not to answer");
    // Nothing typed at the card became a prompt of its own.
    expect(JSON.stringify(fake.requests.at(-1)!.body.input).match(/4000 please/g)?.length).toBe(1);
  });
});
