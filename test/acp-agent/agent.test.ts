// `scv acp` through the compiled binary, driven by the official ACP SDK's client side against the scripted model.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { type Editor, initialize, startEditor } from "../fake/acp-editor";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const editors: Editor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.stop()));
  fake.clear();
});

function editor(opts: Partial<Parameters<typeof startEditor>[0]> & { home?: ReturnType<typeof fakeHome> } = {}) {
  const home = opts.home ?? fakeHome(fake.url);
  const e = startEditor({ env: home.env, cwd: home.workspace, ...opts });
  editors.push(e);
  return { e, ...home };
}

describe("scv acp", () => {
  test("initialize states SCV's capabilities; session/new and a prompt stream the reply and end the turn", async () => {
    const { e, workspace } = editor();
    const init = await initialize(e);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities.loadSession).toBe(true);
    expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {} });
    expect(init.agentCapabilities.promptCapabilities).toMatchObject({ image: true, audio: false, embeddedContext: true });
    expect(init.authMethods).toEqual([]);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    expect(s.sessionId).toMatch(/./);
    expect(s.modes.currentModeId).toBe("ask");
    fake.queue(text("Hello from SCV.", { reasoning: "thinking it over" }));
    const r = await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "say hello" }] });
    expect(r.stopReason).toBe("end_turn");
    const chunks = e.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk").map((u) => u.update.content.text).join("");
    expect(chunks).toBe("Hello from SCV.");
    expect(fake.requests.at(-1)!.body.input.some((i: any) => JSON.stringify(i).includes("say hello"))).toBe(true);
  });

  test("reasoning summaries stream as agent_thought_chunk", async () => {
    const { e, workspace } = editor({ home: fakeHome(fake.url, 'reasoning_summary = "auto"\n') });
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    fake.queue(text("done", { reasoning: "weighing the options" }));
    expect((await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "think" }] })).stopReason).toBe("end_turn");
    const thoughts = e.updates.filter((u) => u.update.sessionUpdate === "agent_thought_chunk").map((u) => u.update.content.text).join("");
    expect(thoughts).toBe("weighing the options");
  });

  test("a write asks permission: allow runs it and shows its diff, reject leaves the file alone; always follows identical calls", async () => {
    const { e, workspace } = editor({ answer: (p) => ({ c1: "allow-once", c3: "allow-always", c4: "allow-always" })[p.toolCall.toolCallId as string] ?? "reject-once" });
    writeFileSync(join(workspace, "notes.txt"), "old text\n");
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    fake.queue(
      toolCalls([{ id: "c1", name: "write", arguments: { path: "notes.txt", content: "new text\n", mode: "replace" } }]),
      toolCalls([{ id: "c2", name: "write", arguments: { path: "other.txt", content: "rejected\n", mode: "create" } }]),
      text("wrote one, not the other"),
    );
    const r = await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "write files" }] });
    expect(r.stopReason).toBe("end_turn");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("new text\n");
    expect(existsSync(join(workspace, "other.txt"))).toBe(false);
    expect(e.permissions).toHaveLength(2);
    const asked = e.permissions[0];
    expect(asked.sessionId).toBe(s.sessionId);
    expect(asked.toolCall).toMatchObject({ toolCallId: "c1", title: "write notes.txt", kind: "edit", locations: [{ path: join(workspace, "notes.txt") }] });
    // The change as ACP's diff block (the editor's own diff view), then SCV's summary as text.
    expect(asked.toolCall.content[0]).toEqual({ type: "diff", path: join(workspace, "notes.txt"), oldText: "old text\n", newText: "new text\n" });
    expect(asked.toolCall.content[1].content.text).toContain("new text");
    expect(e.permissions[1].toolCall.content[0]).toEqual({ type: "diff", path: join(workspace, "other.txt"), oldText: null, newText: "rejected\n" });
    expect(asked.options.map((o: any) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
    const started = e.updates.find((u) => u.update.sessionUpdate === "tool_call" && u.update.toolCallId === "c1")!.update;
    expect(started).toMatchObject({ title: "write notes.txt", kind: "edit", status: "pending", locations: [{ path: join(workspace, "notes.txt") }] });
    const done = e.updates.find((u) => u.update.sessionUpdate === "tool_call_update" && u.update.toolCallId === "c1" && u.update.status)!.update;
    expect(done.status).toBe("completed");
    expect(done.content).toEqual([{ type: "diff", path: join(workspace, "notes.txt"), oldText: "old text\n", newText: "new text\n" }]);
    const rejected = e.updates.filter((u) => u.update.sessionUpdate === "tool_call_update" && u.update.toolCallId === "c2").at(-1)!.update;
    expect(rejected.status).toBe("failed");
    expect(rejected.rawOutput.denied).toBe(true);

    // "Allow identical calls": the same call again runs unasked; a different one is asked about.
    const call = { name: "write", arguments: { path: "a.txt", content: "always\n", mode: "create" } };
    fake.queue(toolCalls([{ id: "c3", ...call }]), text("one"));
    await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "a" }] });
    expect(e.permissions).toHaveLength(3);
    writeFileSync(join(workspace, "a.txt"), "x");
    const replace = { name: "write", arguments: { path: "a.txt", content: "always\n", mode: "replace" } };
    fake.queue(toolCalls([{ id: "c4", ...replace }]), toolCalls([{ id: "c5", ...replace }]), text("two"));
    await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "b" }] });
    // c4 differs from c3 (mode), so it is asked (and allowed always); c5 is identical to c4 and runs unasked.
    expect(e.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["c1", "c2", "c3", "c4"]);
    const c5 = e.updates.filter((u) => u.update.toolCallId === "c5").at(-1)!.update;
    expect(c5.status).toBe("completed");
  });

  test("an edit's permission request carries the whole file before and after as a diff block, secrets masked", async () => {
    const { e, workspace } = editor({ answer: () => "allow-once" });
    writeFileSync(join(workspace, "conf.ts"), "const a = 1;\nconst key = \"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\";\nconst b = 2;\n");
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    fake.queue(toolCalls([{ id: "e1", name: "edit", arguments: { path: "conf.ts", edits: [{ old_text: "const b = 2;", new_text: "const b = 3;" }] } }]), text("edited"));
    expect((await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "edit" }] })).stopReason).toBe("end_turn");
    const diff = e.permissions[0].toolCall.content[0];
    expect(diff).toMatchObject({ type: "diff", path: join(workspace, "conf.ts") });
    expect(diff.oldText).toContain("const b = 2;");
    expect(diff.newText).toContain("const a = 1;\n");
    expect(diff.newText).toContain("const b = 3;\n");
    expect(diff.newText).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
    expect(readFileSync(join(workspace, "conf.ts"), "utf8")).toContain("const b = 3;");
  });

  test("the provider key in a file is masked in the diff of a completed write and edit, and in session/load's replay", async () => {
    const key = "plainProviderKey4f9a8b7c6d5e3210";
    const home = fakeHome(fake.url, `api_key = "${key}"\n`);
    const { e, workspace } = editor({ home, answer: () => "allow-once" });
    writeFileSync(join(workspace, "conf.ts"), `const a = 1;\nconst key = "${key}";\nconst b = 2;\n`);
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    fake.queue(
      toolCalls([{ id: "e1", name: "edit", arguments: { path: "conf.ts", edits: [{ old_text: "const b = 2;", new_text: "const b = 3;" }] } }]),
      toolCalls([{ id: "w1", name: "write", arguments: { path: "new.ts", content: `export const k = "${key}";\n`, mode: "create" } }]),
      text("done"),
    );
    expect((await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "edit" }] })).stopReason).toBe("end_turn");
    expect(readFileSync(join(workspace, "new.ts"), "utf8")).toContain(key); // the file itself is written as asked
    for (const id of ["e1", "w1"]) {
      const done = e.updates.find((u) => u.update.sessionUpdate === "tool_call_update" && u.update.toolCallId === id && u.update.status === "completed")!.update;
      expect(done.content[0].type).toBe("diff");
      expect(done.content[0].newText).toContain("***");
    }
    const edited = e.updates.find((u) => u.update.toolCallId === "e1" && u.update.status === "completed")!.update.content[0];
    expect(edited.oldText).toContain("const b = 2;");
    expect(edited.newText).toContain("const b = 3;");
    expect(JSON.stringify(e.updates)).not.toContain(key);
    expect(JSON.stringify(e.permissions)).not.toContain(key);
    // session/load replays the stored calls: masked there too.
    await e.stop();
    const { e: e2 } = editor({ home });
    await initialize(e2);
    await e2.request("session/load", { sessionId: s.sessionId, cwd: workspace, mcpServers: [] });
    expect(e2.updates.some((u) => u.update.toolCallId?.includes("replay"))).toBe(true);
    expect(JSON.stringify(e2.updates)).not.toContain(key);
  });

  test("modes: approve-all runs calls unasked; set_mode refuses an unknown mode", async () => {
    const { e, workspace } = editor({ answer: () => "reject-once" });
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    await expect(e.request("session/set_mode", { sessionId: s.sessionId, modeId: "yolo" })).rejects.toMatchObject({ code: -32602 });
    await e.request("session/set_mode", { sessionId: s.sessionId, modeId: "approve-all" });
    fake.queue(toolCalls([{ id: "b1", name: "bash", arguments: { command: "echo hi-from-bash" } }]), text("ran it"));
    await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "run" }] });
    expect(e.permissions).toHaveLength(0);
    const started = e.updates.find((u) => u.update.sessionUpdate === "tool_call")!.update;
    expect(started).toMatchObject({ toolCallId: "b1", kind: "execute", title: "$ echo hi-from-bash" });
    const done = e.updates.filter((u) => u.update.toolCallId === "b1").at(-1)!.update;
    expect(done.status).toBe("completed");
    expect(done.content[0].content.text).toMatch(/^```console\n[\s\S]*hi-from-bash[\s\S]*\n```$/);
    const modeUpdate = e.updates.find((u) => u.update.sessionUpdate === "current_mode_update")!.update;
    expect(modeUpdate.currentModeId).toBe("approve-all");
    const opts = await e.request("session/set_config_option", { sessionId: s.sessionId, configId: "mode", value: "ask" });
    expect(opts.configOptions[0]).toMatchObject({ id: "mode", currentValue: "ask" });
  });

  test("session/cancel during bash ends the prompt as cancelled within 2 s and stops the command", async () => {
    const { e, workspace } = editor({ answer: () => "allow-once" });
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    const marker = `acp-cancel-${process.pid}-${Date.now()}`;
    fake.queue(toolCalls([{ id: "s1", name: "bash", arguments: { command: `sleep 30; echo ${marker}` } }]), text("never"));
    const prompt = e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "wait" }] });
    await e.waitForUpdate((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "s1");
    await Bun.sleep(300); // the command is running
    const before = performance.now();
    await e.notify("session/cancel", { sessionId: s.sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(performance.now() - before).toBeLessThan(10_000); // stopped, not the 30 s sleep
    const ps = Bun.spawnSync(["ps", "-eo", "args"]).stdout.toString();
    expect(ps).not.toContain(marker);
    // The session takes the next prompt.
    fake.clear();
    fake.queue(text("back"));
    expect((await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn");
  });

  test("session/load replays a session scv exec made; list finds it; close frees it", async () => {
    const home = fakeHome(fake.url);
    fake.queue(text("exec says hi"));
    const run = await runBinary(["exec", "hello from exec"], home.env, home.workspace);
    expect(run.code).toBe(0);
    const { e } = editor({ home });
    await initialize(e);
    const list = await e.request("session/list", { cwd: home.workspace });
    expect(list.sessions).toHaveLength(1);
    const stored = list.sessions[0];
    expect(stored).toMatchObject({ cwd: home.workspace, title: "hello from exec" });
    expect(Date.parse(stored.updatedAt)).toBeGreaterThan(0);
    const loaded = await e.request("session/load", { sessionId: stored.sessionId, cwd: home.workspace, mcpServers: [] });
    expect(loaded.modes.currentModeId).toBe("ask");
    const replay = e.updates.map((u) => [u.sessionId, u.update.sessionUpdate, u.update.content?.text]);
    expect(replay).toEqual([
      [stored.sessionId, "user_message_chunk", "hello from exec"],
      [stored.sessionId, "agent_message_chunk", "exec says hi"],
    ]);
    fake.queue(text("continued"));
    expect((await e.request("session/prompt", { sessionId: stored.sessionId, prompt: [{ type: "text", text: "more" }] })).stopReason).toBe("end_turn");
    // The history went to the model with the new prompt.
    expect(JSON.stringify(fake.requests.at(-1)!.body.input)).toContain("exec says hi");
    await e.request("session/close", { sessionId: stored.sessionId });
    await expect(e.request("session/prompt", { sessionId: stored.sessionId, prompt: [{ type: "text", text: "x" }] })).rejects.toMatchObject({ code: -32002 });
    // Closed, it can be resumed (no replay) by this or another process.
    const before = e.updates.length;
    await e.request("session/resume", { sessionId: stored.sessionId, cwd: home.workspace, mcpServers: [] });
    expect(e.updates.length).toBe(before);
  });

  test("session/load replays past tool calls: title, kind, status, the diff of an edit, the output of a command", async () => {
    const home = fakeHome(fake.url);
    writeFileSync(join(home.workspace, "math.ts"), "export const one = 1;\nexport const two = 3;\n");
    fake.queue(
      toolCalls([{ id: "c1", name: "edit", arguments: { path: "math.ts", edits: [{ old_text: "two = 3", new_text: "two = 2" }] } }]),
      toolCalls([{ id: "c2", name: "bash", arguments: { command: "echo replayed-output; exit 3" } }]),
      text("fixed it"),
    );
    const run = await runBinary(["exec", "--yes", "fix math"], home.env, home.workspace);
    expect(run.code).toBe(0);
    const { e } = editor({ home });
    await initialize(e);
    const [stored] = (await e.request("session/list", { cwd: home.workspace })).sessions;
    await e.request("session/load", { sessionId: stored.sessionId, cwd: home.workspace, mcpServers: [] });
    expect(e.updates.map((u) => u.update.sessionUpdate)).toEqual(["user_message_chunk", "tool_call", "tool_call", "agent_message_chunk"]);
    const [edit, bash] = e.updates.filter((u) => u.update.sessionUpdate === "tool_call").map((u) => u.update);
    expect(edit).toMatchObject({ title: "edit math.ts (+1 -1 lines)", kind: "edit", status: "completed", locations: [{ path: join(home.workspace, "math.ts") }] });
    expect(edit.content).toEqual([{ type: "diff", path: join(home.workspace, "math.ts"), oldText: "export const one = 1;\nexport const two = 3;", newText: "export const one = 1;\nexport const two = 2;" }]);
    expect(bash).toMatchObject({ kind: "execute", status: "failed" });
    expect(bash.title).toContain("echo replayed-output");
    expect(bash.content[0].content.text).toContain("replayed-output");
    expect(new Set([edit.toolCallId, bash.toolCallId]).size).toBe(2);
  });

  test("a session created and never prompted is kept: another editor lists it, loads it and prompts it", async () => {
    const home = fakeHome(fake.url);
    const first = editor({ home }).e;
    await initialize(first);
    const { sessionId } = await first.request("session/new", { cwd: home.workspace, mcpServers: [] });
    expect(await first.stop()).toBe(0);
    const { e } = editor({ home });
    await initialize(e);
    expect((await e.request("session/list", { cwd: home.workspace })).sessions.map((s: any) => s.sessionId)).toEqual([sessionId]);
    await e.request("session/load", { sessionId, cwd: home.workspace, mcpServers: [] });
    expect(e.updates).toEqual([]);
    fake.queue(text("late but here"));
    expect((await e.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "now" }] })).stopReason).toBe("end_turn");
    expect(e.updates.map((u) => u.update.content?.text).join("")).toBe("late but here");
    // Loaded again on the same connection (closed and reopened), it still is there, now with its turn.
    await e.request("session/load", { sessionId, cwd: home.workspace, mcpServers: [] });
    expect(e.updates.filter((u) => u.update.sessionUpdate === "user_message_chunk").map((u) => u.update.content.text)).toEqual(["now"]);
  });

  test("bad input gets ACP's errors and the agent keeps serving", async () => {
    const { e, workspace } = editor();
    await expect(e.request("session/new", { cwd: workspace, mcpServers: [] })).rejects.toMatchObject({ code: -32600 });
    await initialize(e);
    await expect(e.request("session/frobnicate", {})).rejects.toMatchObject({ code: -32601 });
    await expect(e.request("session/new", { cwd: "relative/dir", mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(e.request("session/new", { cwd: join(workspace, "missing"), mcpServers: [] })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("not an existing directory") });
    await expect(e.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] })).rejects.toMatchObject({ code: -32002 });
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [{ type: "sse", name: "files", url: "http://127.0.0.1:9/sse", headers: [] }] });
    await expect(e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }] })).rejects.toMatchObject({ code: -32602 });
    fake.queue({ kind: "hang" }, text("second"));
    const asked = fake.requests.length;
    const first = e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "one" }] });
    // The first prompt runs once its model request is out (waited for: 200 ms was not always enough under load).
    for (const end = Date.now() + 25_000; fake.requests.length === asked && Date.now() < end; ) await Bun.sleep(20);
    await expect(e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "two" }] })).rejects.toMatchObject({ code: -32600, message: expect.stringContaining("already running") });
    await e.notify("session/cancel", { sessionId: s.sessionId });
    expect((await first).stopReason).toBe("cancelled");
    // Raw malformed lines get their errors too.
    e.proc.stdin.write("this is not json\n");
    e.proc.stdin.write('{"jsonrpc":"2.0","id":[1],"method":"x"}\n');
    fake.queue(text("still here"));
    expect((await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "ok?" }] })).stopReason).toBe("end_turn");
    const stderr = e.stderr();
    await e.stop();
    expect(await stderr).toContain('MCP server "files" is not used: SCV connects to stdio and streamable HTTP servers, not sse');
  });
});

describe("scv acp images and plans", () => {
  // The smallest PNG: a 1x1 transparent pixel.
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

  test("an image prompt reaches a model that takes images; a model that takes none refuses it with the reason", async () => {
    const { e, workspace, home } = editor({ home: fakeHome(fake.url, "images = true\n") });
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    fake.queue(text("a single pixel"));
    const r = await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "what is this?" }, { type: "image", data: PNG, mimeType: "image/png" }] });
    expect(r.stopReason).toBe("end_turn");
    const body = JSON.stringify(fake.requests.at(-1)!.body.input);
    expect(body).toContain("input_image");
    expect(body).toContain(`data:image/png;base64,${PNG}`);
    // Kept as a private file the session's history refers to.
    const kept = join(home, "state", "acp-images", s.sessionId);
    expect(readdirSync(kept)).toHaveLength(1);
    expect(statSync(join(kept, readdirSync(kept)[0]!)).mode & 0o777).toBe(0o600);

    const plain = editor();
    await initialize(plain.e);
    const t = await plain.e.request("session/new", { cwd: plain.workspace, mcpServers: [] });
    await expect(plain.e.request("session/prompt", { sessionId: t.sessionId, prompt: [{ type: "image", data: PNG, mimeType: "image/png" }] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("images = true"),
    });
  });

  test("the model's plan arrives as a plan update, and again when the session is loaded", async () => {
    const { e, workspace } = editor();
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    const items = [
      { text: "read the code", status: "done" },
      { text: "fix the bug", status: "in_progress" },
      { text: "run the tests", status: "pending" },
    ];
    fake.queue(toolCalls([{ id: "p1", name: "plan", arguments: { items } }]), text("working on it"));
    await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "plan it" }] });
    const expected = {
      sessionUpdate: "plan",
      entries: [
        { content: "read the code", priority: "medium", status: "completed" },
        { content: "fix the bug", priority: "medium", status: "in_progress" },
        { content: "run the tests", priority: "medium", status: "pending" },
      ],
    };
    expect(e.updates.find((u) => u.update.sessionUpdate === "plan")!.update).toEqual(expected);
    expect(e.updates.find((u) => u.update.toolCallId === "p1")!.update.kind).toBe("think");
    await e.request("session/close", { sessionId: s.sessionId });
    const before = e.updates.length;
    await e.request("session/load", { sessionId: s.sessionId, cwd: workspace, mcpServers: [] });
    expect(e.updates.slice(before).map((u) => u.update.sessionUpdate)).toEqual(["user_message_chunk", "tool_call", "agent_message_chunk", "plan"]);
    expect(e.updates.at(-1)!.update).toEqual(expected);
  });
});

describe("scv acp models", () => {
  test("the model option lists the configured provider profiles; switching continues the session on the other one", async () => {
    const { e, workspace } = editor({ home: fakeHome(fake.url, `[providers.other]\nbase_url = "${fake.url}"\nmodel = "other-model"\nmax_retries = 0\n`) });
    await initialize(e);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    const model = s.configOptions.find((o: any) => o.id === "model");
    expect(model).toMatchObject({ category: "model", currentValue: "fake" });
    expect(model.options).toEqual([
      { value: "fake", name: "fake (fake-model)" },
      { value: "other", name: "other (other-model)" },
    ]);
    fake.queue(text("first answer"));
    await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "one" }] });
    expect(fake.requests.at(-1)!.body.model).toBe("fake-model");
    await expect(e.request("session/set_config_option", { sessionId: s.sessionId, configId: "model", value: "nope" })).rejects.toMatchObject({ code: -32602 });
    const r = await e.request("session/set_config_option", { sessionId: s.sessionId, configId: "model", value: "other" });
    expect(r.configOptions.find((o: any) => o.id === "model").currentValue).toBe("other");
    fake.queue(text("second answer"));
    await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "two" }] });
    const last = fake.requests.at(-1)!.body;
    expect(last.model).toBe("other-model");
    expect(JSON.stringify(last.input)).toContain("first answer");
  });
});

describe("scv acp with the editor's file access", () => {
  test("read and write go through fs/read_text_file and fs/write_text_file: the unsaved buffer is what the model sees and what changes", async () => {
    const buffers = new Map<string, string>();
    const { e, workspace } = editor({
      answer: () => "allow-once",
      fs: {
        read: (path) => buffers.get(path) ?? readFileSync(path, "utf8"),
        write: (path, content) => void buffers.set(path, content),
      },
    });
    const file = join(workspace, "draft.md");
    writeFileSync(file, "saved on disk\n");
    buffers.set(file, "unsaved in the editor\n");
    await initialize(e, true);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    fake.queue(
      toolCalls([{ id: "r1", name: "read", arguments: { path: "draft.md" } }]),
      toolCalls([{ id: "w1", name: "write", arguments: { path: "draft.md", content: "edited in the editor\n", mode: "replace" } }]),
      text("done"),
    );
    expect((await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "edit the draft" }] })).stopReason).toBe("end_turn");
    // The model saw the buffer, not the disk.
    const readOutput = JSON.stringify(fake.requests.at(-2)!.body.input);
    expect(readOutput).toContain("unsaved in the editor");
    expect(readOutput).not.toContain("saved on disk");
    // The write went to the editor; the disk is untouched until the editor saves.
    expect(buffers.get(file)).toBe("edited in the editor\n");
    expect(readFileSync(file, "utf8")).toBe("saved on disk\n");
    expect(e.fsCalls.map((c) => [c.method, c.params.path, c.params.sessionId])).toEqual([
      ["fs/read_text_file", file, s.sessionId],
      ["fs/write_text_file", file, s.sessionId],
    ]);
    const done = e.updates.filter((u) => u.update.toolCallId === "w1").at(-1)!.update;
    expect(done.content).toEqual([{ type: "diff", path: file, oldText: "saved on disk\n", newText: "edited in the editor\n" }]);
  });
});
