// A long coding session in the compiled binary, in a real terminal (tmux): accept-edits mode (Shift-Tab) runs a
// ten-edit refactor with no approval keypress while a secret-like path and a command still ask; a file change's
// diff stays in the scrollback (collapsed when long, Ctrl-O expands it) and comes back in a --continue replay and
// in `scv sessions show`; a denial with a reason reaches the model and never becomes a prompt; the guard's refusal
// is on the call's line; "don't ask again for this tool" (t) answers the tool's later calls.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(90_000);

const fake = fakeModelForEachTest();
let pane: Terminal | undefined;
afterEach(() => {
  pane?.close();
  pane = undefined;
});

/** Sandboxed commands run unasked by default (sandbox.auto_run); the tests that need a command to ask turn it off. */
const COMMANDS_ASK = "[sandbox]\nauto_run = false\n";

function open(size: { width: number; height: number }, setup?: (workspace: string) => void, args: string[] = []) {
  const h = fakeHome(fake.url, COMMANDS_ASK);
  setup?.(h.workspace);
  pane = openTerminal([requireBinary(), ...args], { env: h.env, cwd: h.workspace, ...size });
  return { ...h, pane };
}

/** The tool results the model was sent in its last request, by call ID. */
function lastToolResults(): Record<string, string> {
  const input = (fake.requests.at(-1)!.body as { input: { type: string; call_id?: string; output?: string }[] }).input;
  return Object.fromEntries(input.filter((i) => i.type === "function_call_output").map((i) => [i.call_id!, String(i.output)]));
}

const sizes = [
  { width: 120, height: 40 },
  { width: 80, height: 24 },
];

for (const size of sizes) {
  test.skipIf(!needs("tmux"))(`accept edits (${size.width}x${size.height}): a ten-edit refactor needs no keypress; a secret-like path and a command still ask`, async () => {
    const { pane, workspace } = open(size, (ws) => {
      for (let i = 0; i < 10; i++) writeFileSync(join(ws, `m${i}.ts`), `export function oldName${i}() {\n  return ${i};\n}\n`);
      writeFileSync(join(ws, ".env"), "TOKEN=1\n");
    });
    await pane.waitFor(/s-[0-9a-f]{8}/);
    pane.keys("BTab"); // Shift-Tab
    await pane.waitFor("accept edits on (Shift-Tab to turn off)");
    const edits = Array.from({ length: 10 }, (_, i) => toolCalls([{ id: `e${i}`, name: "edit", arguments: { path: `m${i}.ts`, edits: [{ old_text: `oldName${i}`, new_text: `newName${i}` }] } }]));
    fake.queue(...edits, toolCalls([{ id: "env", name: "edit", arguments: { path: ".env", edits: [{ old_text: "TOKEN=1", new_text: "TOKEN=2" }] } }]));
    pane.type("rename them");
    pane.keys("Enter");
    // Every edit ran before the first card: the secret-like .env's.
    const card = await pane.waitFor("y approve once");
    for (let i = 0; i < 10; i++) expect(readFileSync(join(workspace, `m${i}.ts`), "utf8")).toContain(`newName${i}`);
    expect(card).toContain("Allow edit?");
    expect(card).toContain(".env");
    // The keypresses the ten edits needed: the approvals asked before the .env card.
    expect(card.match(/Allow edit\?/g)).toHaveLength(1);
    fake.queue(toolCalls([{ id: "cmd", name: "bash", arguments: { command: "touch made-by-bash" } }]));
    pane.keys("n");
    await pane.waitFor("what should it do instead?");
    pane.keys("Enter"); // no reason
    await pane.waitFor(/Allow bash\?/);
    expect(readFileSync(join(workspace, ".env"), "utf8")).toBe("TOKEN=1\n");
    fake.queue(text("all renamed"));
    pane.keys("Escape");
    const end = await pane.waitFor("all renamed");
    expect(existsSync(join(workspace, "made-by-bash"))).toBe(false);
    expect(lastToolResults().cmd).toBe("not run: the user denied this request");
    // Each edit's diff is in the scrollback.
    for (let i = 0; i < 10; i++) expect(end).toContain(`+export function newName${i}() {`);
    expect(end).not.toMatch(/sha256/);
  });
}

test.skipIf(!needs("tmux"))("a diff stays in the scrollback, long ones collapsed (Ctrl-O expands); --continue and scv sessions show bring it back", async () => {
  const long = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");
  const opened = open({ width: 120, height: 40 }, (ws) => writeFileSync(join(ws, "math.ts"), "export const add = (a, b) => a - b;\n"));
  const { workspace, env, home } = opened;
  let term = opened.pane;
  await term.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(
    toolCalls([{ name: "edit", arguments: { path: "math.ts", edits: [{ old_text: "a - b", new_text: "a + b" }] } }]),
    toolCalls([{ name: "write", arguments: { path: "long.txt", content: `${long}\n`, mode: "create" } }]),
    text("fixed"),
  );
  term.type("fix add");
  term.keys("Enter");
  await term.waitFor("y approve once");
  term.keys("y");
  await term.waitFor("ask again for write");
  term.keys("y");
  let screen = await term.waitFor("fixed");
  expect(screen).toContain("✓ edit math.ts (+1 -1 lines)");
  expect(screen).toMatch(/-export const add = \(a, b\) => a - b;\n\s+\+export const add = \(a, b\) => a \+ b;/);
  expect(screen).toContain("+line 10");
  expect(screen).not.toContain("+line 11"); // collapsed after its first lines
  expect(screen).toContain("… 29 more lines (Ctrl-O shows the whole diff)");
  expect(screen).not.toMatch(/sha256/);
  term.keys("C-o");
  screen = await term.waitFor("+line 39");
  term.keys("C-d");
  expect(await term.exitCode()).toBe(0);
  const id = /scv --resume (s-[0-9a-f]{8})/.exec(term.screen())![1]!;
  term.close();

  const again = openTerminal([requireBinary(), "--continue"], { env, cwd: workspace, width: 120, height: 40 });
  pane = again;
  term = again;
  const replay = await again.waitFor(`resumed ${id}`);
  expect(replay).toMatch(/-export const add = \(a, b\) => a - b;\n\s+\+export const add = \(a, b\) => a \+ b;/);
  expect(replay).toContain("… 29 more lines (Ctrl-O shows the whole diff)");

  const shown = await runBinary(["sessions", "show", id], { ...env, SCV_HOME: home }, workspace);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("· edit math.ts (+1 -1 lines)");
  expect(shown.stdout).toContain("    +export const add = (a, b) => a + b;");
  expect(shown.stdout).toContain("    +line 39");
});

test.skipIf(!needs("tmux"))("n then a reason: the model is told `denied: <reason>`, nothing typed becomes a prompt; t allows the tool for the session", async () => {
  const { pane, workspace } = open({ width: 80, height: 24 }, (ws) => {
    mkdirSync(join(ws, "src"));
    writeFileSync(join(ws, "src", "a.ts"), "one\n");
  });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(toolCalls([{ id: "w1", name: "write", arguments: { path: "src/helper.ts", content: "export {}\n", mode: "create" } }]), text("understood"));
  pane.type("add a helper");
  pane.keys("Enter");
  await pane.waitFor("y approve once");
  pane.keys("n");
  await pane.waitFor("what should it do instead?");
  pane.type("use the existing helper in utils.ts");
  await pane.waitFor("› use the existing helper in utils.ts");
  pane.keys("Enter");
  const screen = await pane.waitFor("understood");
  expect(lastToolResults().w1).toBe("not run: denied: use the existing helper in utils.ts");
  expect(screen).toContain("⊘ write src/helper.ts denied: use the existing helper in utils.ts");
  expect(fake.requests).toHaveLength(2); // the reason was no new turn
  expect(existsSync(join(workspace, "src", "helper.ts"))).toBe(false);

  // t: don't ask again for edit in this session.
  fake.queue(
    toolCalls([{ name: "edit", arguments: { path: "src/a.ts", edits: [{ old_text: "one", new_text: "two" }] } }]),
    toolCalls([{ name: "edit", arguments: { path: "src/a.ts", edits: [{ old_text: "two", new_text: "three" }] } }]),
    text("edited twice"),
  );
  pane.type("edit it twice");
  pane.keys("Enter");
  await pane.waitFor(/don't ask\s+again for edit|don't ask again for\s+edit|t don't ask/);
  pane.keys("t");
  await pane.waitFor("edited twice");
  expect(readFileSync(join(workspace, "src", "a.ts"), "utf8")).toBe("three\n");
  expect(pane.screen().match(/Allow edit\?/g) ?? []).toHaveLength(0); // the card is gone from the scrollback
});

test.skipIf(!needs("tmux"))("the guard's refusal is on the call's own line", async () => {
  const { pane, env } = open({ width: 80, height: 24 });
  mkdirSync(env.HOME!, { recursive: true });
  writeFileSync(join(env.HOME!, "keep.txt"), "mine");
  await pane.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "rm -rf ~" } }]), text("could not"));
  pane.type("clean up");
  pane.keys("Enter");
  const screen = await pane.waitFor("could not");
  expect(screen).toMatch(/⊘ \$ rm -rf ~ refused: .*home/);
  expect(existsSync(join(env.HOME!, "keep.txt"))).toBe(true);
});

/**
 * Keypresses a ten-edit refactor costs, per way of answering: ask mode with `y` each time, `t` once, and accept
 * edits (Shift-Tab before the prompt). Counted as the approval keys pressed until the turn's reply is on screen.
 */
async function refactorKeypresses(how: "y" | "t" | "accept-edits"): Promise<number> {
  const { pane, workspace } = open({ width: 120, height: 40 }, (ws) => {
    for (let i = 0; i < 10; i++) writeFileSync(join(ws, `m${i}.ts`), `export const v${i} = old(${i});\n`);
  });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  if (how === "accept-edits") {
    pane.keys("BTab");
    await pane.waitFor("accept edits on");
  }
  fake.queue(...Array.from({ length: 10 }, (_, i) => toolCalls([{ name: "edit", arguments: { path: `m${i}.ts`, edits: [{ old_text: `old(${i})`, new_text: `fresh(${i})` }] } }])), text("refactor done"));
  pane.type("rename old to fresh");
  pane.keys("Enter");
  let presses = 0;
  const deadline = Date.now() + 30_000;
  for (;;) {
    // A card is open when the bottom of the screen (the live region) shows its answers.
    const visible = pane.screen({ visible: true });
    if (visible.includes("refactor done")) break;
    if (Date.now() > deadline) throw new Error(`the refactor never finished; the screen:\n${visible}`);
    if (!visible.includes("y approve once")) {
      await Bun.sleep(50);
      continue;
    }
    pane.keys(how === "t" ? "t" : "y");
    presses++;
    await pane.waitFor((s) => s.includes("refactor done") || (s.match(/✓ edit m\d\.ts \(\+1 -1 lines\)/g) ?? []).length >= presses);
  }
  for (let i = 0; i < 10; i++) expect(readFileSync(join(workspace, `m${i}.ts`), "utf8")).toBe(`export const v${i} = fresh(${i});\n`);
  pane.close();
  return presses;
}

test.skipIf(!needs("tmux"))("keypresses to approve a ten-edit refactor: 10 asking, 1 with t, none in accept-edits mode", async () => {
  const asking = await refactorKeypresses("y");
  const perTool = await refactorKeypresses("t");
  const accepting = await refactorKeypresses("accept-edits");
  console.log(`ten-edit refactor, approval keypresses: ask ${asking}, t ${perTool}, accept edits ${accepting} (+1 Shift-Tab before the prompt)`);
  expect([asking, perTool, accepting]).toEqual([10, 1, 0]);
});

test.skipIf(!needs("tmux"))("at 80x24 a long change's card keeps its question and answers on screen; its summary gives way", async () => {
  const { pane } = open({ width: 80, height: 24 });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  const content = `${Array.from({ length: 60 }, (_, i) => `row ${i}`).join("\n")}\n`;
  fake.queue(toolCalls([{ name: "write", arguments: { path: "big.txt", content, mode: "create" } }]), text("not written"));
  pane.type("write a big file");
  pane.keys("Enter");
  const visible = async () => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const s = pane.screen({ visible: true });
      if (s.includes("Esc deny")) return s;
      if (Date.now() > deadline) throw new Error(`no card; the screen:\n${s}`);
      await Bun.sleep(50);
    }
  };
  const screen = await visible();
  expect(screen).toContain("╭─ Allow write?");
  expect(screen).toContain("y approve once");
  expect(screen).toMatch(/… \d+ more lines/);
  pane.keys("Escape");
  await pane.waitFor("not written");
});

test.skipIf(!needs("tmux"))("scv --accept-edits starts in the mode: an edit runs unasked and /mode says so", async () => {
  const { pane, workspace } = open({ width: 80, height: 24 }, (ws) => writeFileSync(join(ws, "a.ts"), "one\n"), ["--accept-edits"]);
  await pane.waitFor("accept edits on (Shift-Tab to turn off)");
  fake.queue(toolCalls([{ name: "edit", arguments: { path: "a.ts", edits: [{ old_text: "one", new_text: "two" }] } }]), text("edited it"));
  pane.type("edit a");
  pane.keys("Enter");
  await pane.waitFor("edited it");
  expect(readFileSync(join(workspace, "a.ts"), "utf8")).toBe("two\n");
  expect(pane.screen()).not.toContain("Allow edit?");
  pane.type("/mode");
  pane.keys("Enter");
  await pane.waitFor("mode: accept edits (edit and write inside the workspace run unasked)");
});
