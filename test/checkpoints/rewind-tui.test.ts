// /undo, /redo and /rewind (opened with Esc Esc) in the interactive session, in tmux: each shows what will
// change, asks, and restores the files (and, for /rewind, the conversation).
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);

let fake: FakeModel | undefined;
const panes: Terminal[] = [];
afterEach(async () => {
  for (const p of panes.splice(0)) p.close();
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

const write = (path: string, content: string) => ({ name: "write", arguments: { path, content, mode: "replace" } });

test.skipIf(!needs("tmux"))("/undo and /redo show the change and ask; Esc Esc opens /rewind, which rewinds files and conversation", async () => {
  fake = await startFakeModel();
  const h = fakeHome(fake.url, `[tools.approval]\nwrite = "allow"\n`);
  writeFileSync(join(h.workspace, "notes.txt"), "v0\n");
  const t = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
  panes.push(t);
  await t.waitFor(/s-[0-9a-f]{8}/);
  const prompt = async (words: string, ...replies: Parameters<FakeModel["queue"]>) => {
    fake!.queue(...replies);
    t.type(words);
    t.keys("Enter");
    await t.waitFor(String((replies.at(-1) as { text: string }).text));
  };
  await prompt("first edit", toolCalls([write("notes.txt", "v1\n")]), text("wrote v1"));
  await prompt("second edit", toolCalls([write("notes.txt", "v2\n")]), text("wrote v2"));
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("v2\n");

  t.type("/undo");
  t.keys("Enter");
  await t.waitFor("Apply? y yes");
  expect(t.screen()).toContain("restore notes.txt");
  expect(t.screen()).toContain("-v2");
  expect(t.screen()).toContain("+v1");
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("v2\n"); // asked first
  t.type("y");
  await t.waitFor("rewound: 1 restored");
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("v1\n");

  t.type("/redo");
  t.keys("Enter");
  await t.waitFor((s) => s.split("restore notes.txt").length === 3 && /Apply\? y yes[^\n]*\n[\s\S]*$/.test(s.slice(s.lastIndexOf("restore notes.txt"))));
  t.type("y");
  await t.waitFor((s) => s.split("rewound: 1 restored").length === 3);
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("v2\n");

  // Esc Esc on the empty prompt: the prompts to keep up to; choose t1, files and conversation.
  t.keys("Escape");
  await Bun.sleep(150);
  t.keys("Escape");
  await t.waitFor("Rewind: keep up to which prompt?");
  t.keys("Up"); // from t2 (selected) to t1
  t.keys("Enter");
  await t.waitFor("1. files and conversation");
  t.keys("Enter");
  await t.waitFor((s) => s.split("Apply? y yes").length === 2 && s.includes("the turns after t1 leave it"));
  t.type("y");
  await t.waitFor("1 turn left the conversation");
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("v1\n");
  await prompt("after rewinding", text("fresh answer"));
  const input = JSON.stringify(fake.requests.at(-1)!.body.input);
  expect(input).toContain("first edit");
  expect(input).not.toContain("second edit");
});
