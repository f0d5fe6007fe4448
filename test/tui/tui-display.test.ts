// What the TUI shows, in the compiled binary in a real terminal: a Markdown table at 40 columns, Ctrl-L, and an
// agent call's result as its reply text with its status rather than the JSON the model gets.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASH, FAKE_AGENT, signIn } from "../fake/agent-harness";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);

let fake: FakeModel | undefined;
let pane: Terminal | undefined;
const dirs: string[] = [];
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(opts: { extraConfig?: string; env?: Record<string, string>; width?: number; beforeStart?: (home: string) => void } = {}) {
  fake = await startFakeModel();
  const h = fakeHome(fake.url, opts.extraConfig);
  opts.beforeStart?.(h.home);
  pane = openTerminal([requireBinary()], { env: { ...h.env, ...opts.env }, cwd: h.workspace, width: opts.width ?? 100, height: 40 });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  return { ...h, fake, pane };
}

test.skipIf(!needs("tmux"))("a Markdown table renders aligned and cut to a 40-column terminal", async () => {
  const { fake, pane } = await open({ width: 40 });
  fake.queue(text("Here:\n\n| file | change |\n|---|---|\n| a.ts | adds the table renderer to the TUI |\n| bb.ts | one |\n\nDone."));
  pane.type("table please");
  pane.keys("Enter");
  const screen = await pane.waitFor("Done.");
  const rows = screen.split("\n").filter((l) => l.includes("│"));
  expect(rows[0]).toMatch(/^file  │ change/);
  expect(screen).toMatch(/──────┼─+/);
  expect(rows.some((l) => /^a\.ts  │ adds the table renderer.*…$/.test(l))).toBe(true);
  expect(rows.some((l) => l === "bb.ts │ one")).toBe(true);
  for (const l of screen.split("\n")) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(40);
  expect(screen).not.toContain("|---|");
});

test.skipIf(!needs("tmux"))("Ctrl-L clears the screen and redraws the prompt and status line", async () => {
  const { fake, pane } = await open();
  fake.queue(text("An answer that fills a line."));
  pane.type("hello");
  pane.keys("Enter");
  await pane.waitFor("An answer that fills a line.");
  pane.type("half typed");
  pane.keys("C-l");
  const visible = await waitVisible(pane, (s) => !s.includes("An answer that fills a line.") && s.includes("› half typed"));
  expect(visible).toMatch(/fake-model · s-[0-9a-f]{8}/);
});

async function waitVisible(t: Terminal, ok: (s: string) => boolean): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = t.screen({ visible: true });
    if (ok(s)) return s;
    if (Date.now() > deadline) throw new Error(`the visible screen never matched:\n${s}`);
    await Bun.sleep(100);
  }
}

test.skipIf(!needs("tmux"))("an agent call's result shows the agent's reply with its status, not the JSON the model gets", async () => {
  const dir = mkdtempSync(join(tmpdir(), "scv-tui-agent-"));
  dirs.push(dir);
  const stdoutFile = join(dir, "stdout.txt");
  writeFileSync(stdoutFile, "I fixed the parser in src/parse.ts");
  const { fake, pane } = await open({
    extraConfig: `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`,
    env: { FAKE_AGENT_STDOUT: stdoutFile },
    beforeStart: (home) => signIn(home, "dsh"),
  });
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "fix the parser" } }]), text("The agent is done."));
  pane.type("delegate it");
  pane.keys("Enter");
  await pane.waitFor("y approve once");
  pane.keys("y");
  const screen = await pane.waitFor("The agent is done.", 20_000);
  expect(screen).toMatch(/✓ agent dsh: fix the parser \(completed\)\n\s+└ I fixed the parser in src\/parse\.ts/);
  expect(screen).not.toContain('"status"');
  expect(screen).not.toContain('{"agent"');
});

test.skipIf(!needs("tmux"))("Ctrl-R finds a prompt from an earlier session; the history file is private and holds no key", async () => {
  const { fake, home, env, workspace } = await open();
  let term = pane!;
  fake.queue(text("Deployed."), text("Listed."));
  term.type("deploy staging with sk-live0123456789abcdefXYZ");
  term.keys("Enter");
  await term.waitFor("Deployed.");
  term.type("list the files");
  term.keys("Enter");
  await term.waitFor("Listed.");
  term.keys("C-d");
  await term.waitFor(/\[exit 0\]/);
  term.close();

  const file = join(home, "state", "prompt-history.jsonl");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const stored = readFileSync(file, "utf8");
  expect(stored).toContain("deploy staging with");
  expect(stored).not.toContain("sk-live0123456789abcdefXYZ");

  pane = term = openTerminal([requireBinary()], { env, cwd: workspace, width: 100, height: 40 });
  await term.waitFor(/s-[0-9a-f]{8}/);
  term.keys("C-r");
  term.type("stag");
  await term.waitFor("history search stag › deploy staging with");
  term.keys("Enter");
  await term.waitFor(/^› deploy staging with/m);
  expect(term.screen()).not.toContain("history search");
  expect(term.screen()).not.toContain("sk-live0123456789abcdefXYZ");
});

test.skipIf(!needs("tmux"))("@ opens a fuzzy picker over the workspace's files (what .gitignore leaves); the chosen file goes with the prompt", async () => {
  const { fake, workspace } = await open();
  const term = pane!;
  mkdirSync(join(workspace, "src"));
  mkdirSync(join(workspace, "build"));
  writeFileSync(join(workspace, "src", "parser.ts"), "export const parse = (s: string) => s.split(',');\n");
  writeFileSync(join(workspace, "src", "printer.ts"), "export const print = 1;\n");
  writeFileSync(join(workspace, "build", "parser.js"), "compiled\n");
  writeFileSync(join(workspace, ".gitignore"), "build/\n");
  fake.queue(text("It splits on commas."));
  term.type("explain @prs");
  let screen = await term.waitFor("› src/parser.ts");
  expect(screen).not.toContain("build/parser.js");
  expect(screen).toContain("Tab or Enter mention it");
  term.keys("Tab");
  await term.waitFor("› explain @src/parser.ts");
  term.type("please");
  term.keys("Enter");
  screen = await term.waitFor("It splits on commas.");
  expect(screen).toContain("attached @src/parser.ts");
  const input = JSON.stringify(fake.requests.at(-1)!.body.input);
  expect(input).toContain('<file path=\\"src/parser.ts\\">');
  expect(input).toContain("export const parse");
});
