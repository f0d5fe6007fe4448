// `scv acp` for a Claude Code user (compiled binary, the SDK's client side, the scripted model): the person's
// command files are offered as available commands and run with their arguments; the accept-edits mode runs
// edits in the workspace unasked while commands still ask. (issue 56)
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

test("command files are available commands; /name args becomes the prompt; its allowed-tools run unasked", async () => {
  const home = fakeHome(fake.url, "[sandbox]\nauto_run = false\n");
  mkdirSync(join(home.home, "commands"), { recursive: true });
  writeFileSync(join(home.home, "commands", "explain.md"), "---\ndescription: explain a file\nargument-hint: FILE\n---\nExplain $1 briefly.\n");
  writeFileSync(join(home.home, "commands", "mk.md"), "---\nallowed-tools: Bash(touch:*)\n---\nMake $1\n");
  const e = startEditor({ env: home.env, cwd: home.workspace, answer: () => "reject-once" });
  editors.push(e);
  await initialize(e);
  const s = await e.request("session/new", { cwd: home.workspace, mcpServers: [] });
  fake.queue(text("explained"));
  await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "/explain src/a.ts" }] });
  const announced = e.updates.find((u) => u.update.sessionUpdate === "available_commands_update")!.update.availableCommands;
  expect(announced.map((c: any) => c.name)).toEqual(["undo", "redo", "rewind", "explain", "mk"]);
  expect(announced[3]).toMatchObject({ description: "explain a file", input: { hint: "FILE" } });
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("Explain src/a.ts briefly.");
  // allowed-tools: the command's touch runs unasked; the same call in an ordinary prompt goes to the editor.
  fake.queue(toolCalls([{ id: "t1", name: "bash", arguments: { command: "touch by-command" } }]), text("made"));
  await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "/mk by-command" }] });
  expect(existsSync(join(home.workspace, "by-command"))).toBe(true);
  expect(e.permissions).toHaveLength(0);
  fake.queue(toolCalls([{ id: "t2", name: "bash", arguments: { command: "touch by-prompt" } }]), text("asked"));
  await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "make by-prompt" }] });
  expect(e.permissions).toHaveLength(1);
  expect(existsSync(join(home.workspace, "by-prompt"))).toBe(false);
});

test("accept-edits: a write in the workspace runs unasked, a command still asks", async () => {
  const home = fakeHome(fake.url, "[sandbox]\nauto_run = false\n");
  const e = startEditor({ env: home.env, cwd: home.workspace, answer: () => "reject-once" });
  editors.push(e);
  await initialize(e);
  const s = await e.request("session/new", { cwd: home.workspace, mcpServers: [] });
  expect(s.modes.availableModes.map((m: any) => m.id)).toContain("accept-edits");
  await e.request("session/set_mode", { sessionId: s.sessionId, modeId: "accept-edits" });
  fake.queue(
    toolCalls([{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "new\n", mode: "create" } }]),
    toolCalls([{ id: "b1", name: "bash", arguments: { command: "touch made" } }]),
    text("done"),
  );
  await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "write and run" }] });
  expect(readFileSync(join(home.workspace, "notes.txt"), "utf8")).toBe("new\n");
  expect(e.permissions).toHaveLength(1);
  expect(e.permissions[0].toolCall.toolCallId).toBe("b1");
  expect(existsSync(join(home.workspace, "made"))).toBe(false);
});
