// The readable transcript of `scv sessions show`: prompts, actions, replies, and stored text shown as data.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderTranscript } from "../../src/cli/sessions";
import { openSessionStore } from "../../src/sessions/index";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

test("a transcript shows each turn's prompt, tool calls and reply, with terminal escapes made visible", () => {
  const root = mkdtempSync(join(tmpdir(), "scv-show-"));
  roots.push(root);
  const store = openSessionStore({ home: root });
  const rec = store.create({ workspace: "/ws", provider: "fake", model: "m", tools: true });
  rec.append({ type: "turn", turn: "t1", prompt: "list files\nplease", origin: { kind: "user" } });
  rec.append({ type: "item", turn: "t1", item: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "bash", arguments: '{"command":"ls"}' }] } });
  rec.append({ type: "item", turn: "t1", item: { role: "tool", callId: "c1", name: "bash", output: "a\nb" } });
  rec.append({ type: "turn_ended", turn: "t1", status: "completed", reply: "Two files: \x1b[31ma\x1b[0m and b.", usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0 } });
  rec.append({ type: "turn", turn: "t2", prompt: "cut off", origin: { kind: "user" } });
  rec.close();
  const out = renderTranscript(store.load(rec.id));
  expect(out).toContain(`session ${rec.id} · /ws · fake/m`);
  expect(out).toContain("── t1 · user");
  expect(out).toContain("> list files\n> please");
  expect(out).toContain('· bash {"command":"ls"}');
  expect(out).toContain("Two files: \\x1b[31ma\\x1b[0m and b.");
  expect(out).not.toContain("\x1b");
  expect(out).toMatch(/── t2 · user · .* · interrupted/);
});
