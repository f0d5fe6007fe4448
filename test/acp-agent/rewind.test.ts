// /undo, /redo and /rewind as ACP session commands of `scv acp` (compiled binary, the SDK's client side, the
// scripted model): announced with available_commands_update; a command's plan comes as a permission request
// and only an approval restores the files.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Editor, initialize, startEditor } from "../fake/acp-editor";
import { fakeHome, fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const editors: Editor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.stop()));
  fake.clear();
});

test("the editor's /undo shows the plan as a permission request; reject keeps the files, allow restores them; /redo puts them back", async () => {
  let undoAnswer = "reject-once";
  const home = fakeHome(fake.url);
  const e = startEditor({ env: home.env, cwd: home.workspace, answer: (p) => (String(p.toolCall.toolCallId).startsWith("rewind-") ? undoAnswer : "allow-once") });
  editors.push(e);
  writeFileSync(join(home.workspace, "notes.txt"), "old\n");
  await initialize(e);
  const s = await e.request("session/new", { cwd: home.workspace, mcpServers: [] });
  fake.queue(toolCalls([{ id: "c1", name: "write", arguments: { path: "notes.txt", content: "new\n", mode: "replace" } }]), text("changed it"));
  await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "change the notes" }] });
  expect(readFileSync(join(home.workspace, "notes.txt"), "utf8")).toBe("new\n");
  const announced = e.updates.find((u) => u.update.sessionUpdate === "available_commands_update");
  expect(announced!.update.availableCommands.map((c: any) => c.name)).toEqual(["undo", "redo", "rewind"]);
  const prompt = (t: string) => e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: t }] });
  const lastReply = () => e.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk").at(-1)!.update.content.text as string;

  expect((await prompt("/undo")).stopReason).toBe("end_turn");
  expect(lastReply()).toBe("Not restored: nothing changed.");
  expect(readFileSync(join(home.workspace, "notes.txt"), "utf8")).toBe("new\n");
  const asked = e.permissions.at(-1);
  expect(JSON.stringify(asked.toolCall.content)).toContain("restore notes.txt");
  expect(JSON.stringify(asked.toolCall.content)).toContain("-new");

  undoAnswer = "allow-once";
  await prompt("/undo");
  expect(lastReply()).toContain("Restored: 1 restored");
  expect(readFileSync(join(home.workspace, "notes.txt"), "utf8")).toBe("old\n");
  await prompt("/redo");
  expect(readFileSync(join(home.workspace, "notes.txt"), "utf8")).toBe("new\n");
  expect(fake.requests.length).toBe(2); // the first prompt's two requests: no command reached the model
});
