// The model's question (clarify) in an editor, through the compiled `scv acp` and the official ACP SDK's client:
// choices arrive as a permission request whose options are the choices, and the picked one is the answer; a
// question without choices is shown in the conversation and the turn goes on without an answer.
import { afterEach, describe, expect, test } from "bun:test";
import { fakeHome, fakeModelForFile } from "../fake/binary";
import { type Editor, initialize, startEditor } from "../fake/acp-editor";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const editors: Editor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.stop()));
  fake.clear();
});

function lastOutputs(): string[] {
  return (fake.requests.at(-1)!.body.input as any[]).filter((i) => i.type === "function_call_output").map((i) => String(i.output));
}

describe("scv acp: clarify", () => {
  test("the choices are the permission request's options; the picked one answers the question", async () => {
    const home = fakeHome(fake.url);
    const e = startEditor({ env: home.env, cwd: home.workspace, answer: (p) => p.options.find((o: any) => o.name === "PostgreSQL").optionId });
    editors.push(e);
    await initialize(e);
    const s = await e.request("session/new", { cwd: home.workspace, mcpServers: [] });
    fake.queue(toolCalls([{ name: "clarify", arguments: { question: "Which database?", choices: ["SQLite", "PostgreSQL"] } }]), text("PostgreSQL it is."));
    const r = await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "set up storage" }] });
    expect(r.stopReason).toBe("end_turn");
    const asked = e.permissions.find((p) => p.toolCall.title === "? Which database?");
    expect(asked.options.map((o: any) => [o.name, o.kind])).toEqual([["SQLite", "allow_once"], ["PostgreSQL", "allow_once"], ["Skip the question", "reject_once"]]);
    expect(lastOutputs()).toEqual(["The person answered: PostgreSQL"]);
  });

  test("Skip, and a question without choices: the turn goes on with no answer, the question shown in the conversation", async () => {
    const home = fakeHome(fake.url);
    const e = startEditor({ env: home.env, cwd: home.workspace, answer: () => "skip" });
    editors.push(e);
    await initialize(e);
    const s = await e.request("session/new", { cwd: home.workspace, mcpServers: [] });
    fake.queue(
      toolCalls([{ name: "clarify", arguments: { question: "Tabs or spaces?", choices: ["tabs", "spaces"] } }]),
      toolCalls([{ name: "clarify", arguments: { question: "What should the release be called?" } }]),
      text("Went on."),
    );
    const r = await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "format it" }] });
    expect(r.stopReason).toBe("end_turn");
    const outputs = lastOutputs();
    expect(outputs[0]).toContain("The person chose not to answer");
    expect(outputs[1]).toContain("The person chose not to answer");
    expect(e.permissions.some((p) => p.toolCall.title === "? What should the release be called?")).toBe(false);
    const said = e.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk").map((u) => u.update.content.text).join("");
    expect(said).toContain("SCV asks: What should the release be called?");
  });
});
