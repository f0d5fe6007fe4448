// `scv exec` in a real terminal (tmux): --accept-edits runs workspace edits unasked (a secret-like path still
// asks), the diff of each change is printed under its line, n asks for a reason the model then reads, and t stops
// asking for that tool for the rest of the run.
import { afterAll, afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { closeAllTerminals, openTerminal, type Terminal } from "../fake/tmux";
import { FILESYSTEM, JS_RUNTIME, serverToml } from "../fake/mcp-servers";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);
const fake = fakeModelForEachTest();
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});
afterAll(closeAllTerminals);

function scv(args: string[], setup?: (workspace: string) => void, extraConfig?: (workspace: string) => string) {
  const h = fakeHome(fake.url);
  if (extraConfig) writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8") + extraConfig(h.workspace));
  setup?.(h.workspace);
  term = openTerminal([requireBinary(), ...args], { env: h.env, cwd: h.workspace, width: 100, height: 40 });
  return { ...h, term };
}

const edit = (path: string, from: string, to: string, id?: string) => toolCalls([{ ...(id ? { id } : {}), name: "edit", arguments: { path, edits: [{ old_text: from, new_text: to }] } }]);

function toolOutput(callId: string): string | undefined {
  for (const r of fake.requests) {
    const found = (r.body.input as { type: string; call_id?: string; output?: string }[]).find((i) => i.type === "function_call_output" && i.call_id === callId);
    if (found) return String(found.output);
  }
  return undefined;
}

test.skipIf(!needs("tmux"))("--accept-edits: edits run unasked with their diff shown; a secret-like path still asks; n with a reason tells the model", async () => {
  const { term, workspace } = scv(["exec", "--accept-edits", "rename"], (ws) => {
    writeFileSync(join(ws, "a.ts"), "const oldName = 1;\n");
    writeFileSync(join(ws, "b.ts"), "const oldName = 2;\n");
    writeFileSync(join(ws, "id_rsa"), "KEY\n");
  });
  fake.queue(edit("a.ts", "oldName", "newName"), edit("b.ts", "oldName", "newName"), edit("id_rsa", "KEY", "OTHER", "secret"), text("done renaming"));
  await term.waitFor("[y/N/a");
  let screen = term.screen();
  expect(readFileSync(join(workspace, "a.ts"), "utf8")).toBe("const newName = 1;\n");
  expect(readFileSync(join(workspace, "b.ts"), "utf8")).toBe("const newName = 2;\n");
  expect(screen.match(/Approve edit\?/g)).toHaveLength(1); // only the secret-like path's
  expect(screen).toContain("edit a.ts (+1 -1 lines)\n  @@ -1,1 +1,1 @@\n  -const oldName = 1;\n  +const newName = 1;");
  expect(screen).not.toContain("sha256");
  term.type("n");
  await term.waitFor("why not?");
  term.type("leave the key alone");
  term.keys("Enter");
  expect(await term.exitCode()).toBe(0);
  screen = term.screen();
  expect(screen).toContain("edit id_rsa (denied: leave the key alone)");
  expect(toolOutput("secret")).toBe("not run: denied: leave the key alone");
  expect(readFileSync(join(workspace, "id_rsa"), "utf8")).toBe("KEY\n");
});

test.skipIf(!needs("tmux"))("t: the tool's later calls in the run are not asked about", async () => {
  const { term, workspace } = scv(["exec", "edit twice"], (ws) => writeFileSync(join(ws, "a.ts"), "one\n"));
  fake.queue(edit("a.ts", "one", "two"), edit("a.ts", "two", "three"), text("edited"));
  await term.waitFor("[y/N/a/t]");
  expect(term.screen()).toContain("t: don't ask again for edit in this run");
  term.type("t");
  expect(await term.exitCode()).toBe(0);
  expect(readFileSync(join(workspace, "a.ts"), "utf8")).toBe("three\n");
  expect(term.screen().match(/Approve edit\?/g)).toHaveLength(1);
});

test.skipIf(!needs("tmux"))("t on an MCP tool allows that tool alone: list_directory asks once, read_text_file still asks", async () => {
  const { term, workspace } = scv(
    ["exec", "look around"],
    (ws) => writeFileSync(join(ws, "notes.txt"), "hello"),
    (ws) => serverToml("fs", { command: JS_RUNTIME, args: [FILESYSTEM, ws] }),
  );
  const list = () => toolCalls([{ name: "fs__list_directory", arguments: { path: workspace } }]);
  fake.queue(list(), list(), list(), toolCalls([{ id: "read", name: "fs__read_text_file", arguments: { path: join(workspace, "notes.txt") } }]), text("looked"));
  await term.waitFor("Approve mcp.connect:fs?", 20_000);
  term.type("y");
  await term.waitFor("Approve fs__list_directory?", 20_000);
  expect(term.screen()).toContain("t: don't ask again for fs__list_directory in this run");
  term.type("t");
  await term.waitFor("Approve fs__read_text_file?", 20_000);
  expect(term.screen().match(/Approve fs__list_directory\?/g)).toHaveLength(1); // the next two calls ran unasked
  term.type("y");
  expect(await term.exitCode(20_000)).toBe(0);
  expect(toolOutput("read")).toBe("hello");
});
