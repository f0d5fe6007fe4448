// What a Claude Code user types first, in the compiled binary's TUI (tmux at 80x24 and 120x40): `/st`+Enter,
// "did you mean", /clear and /cost, the person's command files with arguments and allowed-tools, and one line
// per approved call. (issue 56)
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary, runBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";

setDefaultTimeout(40_000);

let fake: FakeModel | undefined;
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

async function open(opts: { width?: number; height?: number; setup?: (h: { home: string; workspace: string }) => void } = {}) {
  fake = await startFakeModel();
  const h = fakeHome(fake.url, "[sandbox]\nauto_run = false\n");
  opts.setup?.(h);
  pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace, width: opts.width ?? 80, height: opts.height ?? 24 });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  return { ...h, fake, pane };
}

/** The text of the last user message the model was sent. */
function lastUserText(fake: FakeModel): string {
  const body = fake.requests.at(-1)!.body;
  const items = (body.input ?? body.messages) as any[];
  const user = items.filter((m) => m.role === "user").at(-1);
  const content = user.content;
  return typeof content === "string" ? content : content.map((c: any) => c.text ?? "").join("");
}

describe("Claude Code habits in the TUI", () => {
  for (const [width, height] of [
    [80, 24],
    [120, 40],
  ] as const) {
    test(`/st + Enter opens /status; a mistyped command gets "did you mean" (${width}x${height})`, async () => {
      const { pane } = await open({ width, height });
      pane.type("/st");
      await pane.waitFor("/status");
      pane.keys("Enter");
      await pane.waitFor("model fake-model · session");
      pane.type("/stauts");
      pane.keys("Enter");
      const screen = await pane.waitFor("did you mean /status?");
      expect(screen).not.toContain("unknown command /st;");
    });
  }

  for (const [width, height] of [
    [80, 24],
    [120, 40],
  ] as const) {
    test(`a card fits without splitting an answer, and Space pages through its whole diff (${width}x${height})`, async () => {
      const { fake, pane, workspace } = await open({ width, height });
      const content = Array.from({ length: 80 }, (_, i) => `line number ${i}`).join("\n") + "\n";
      fake.queue(toolCalls([{ name: "write", arguments: { path: "long.txt", content, mode: "create" } }]), text("written"));
      pane.type("write it");
      pane.keys("Enter");
      const card = await pane.waitFor(/more lines \(Down or Space: next page\)/);
      const lines = card.split("\n");
      for (const phrase of ["y approve once", "a identical calls this session", "t don't ask again for write this session", "n deny and say why", "Esc deny"]) {
        expect(lines.some((l) => l.includes(phrase))).toBe(true);
      }
      for (const l of lines) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(width);
      expect(card).not.toContain("+line number 79");
      // Page until the last line shows; the card stays on screen with its answers.
      for (let i = 0; i < 40 && !pane.screen().includes("+line number 79"); i++) {
        pane.type(" ");
        await Bun.sleep(100);
      }
      const last = await pane.waitFor("+line number 79");
      expect(last).toMatch(/lines above \(Up\)/);
      pane.keys("y");
      await pane.waitFor("written");
      expect(await Bun.file(join(workspace, "long.txt")).text()).toBe(content);
    });
  }

  test("/clear starts a fresh session, /cost shows the usage", async () => {
    const { pane } = await open();
    const first = /s-[0-9a-f]{8}/.exec(pane.screen())![0];
    pane.type("/clear");
    pane.keys("Enter");
    await pane.waitFor((s) => (s.match(/session s-[0-9a-f]{8} in/g) ?? []).length >= 2);
    expect(pane.screen().match(/session (s-[0-9a-f]{8}) in/g)!.at(-1)).not.toContain(first);
    pane.type("/cost");
    pane.keys("Enter");
    await pane.waitFor(/this session|today/);
  });

  test("a command file with arguments; its allowed-tools run unasked; one line per approved call", async () => {
    const { fake, pane, workspace } = await open({
      width: 120,
      height: 40,
      setup: ({ home }) => {
        mkdirSync(join(home, "commands"), { recursive: true });
        writeFileSync(join(home, "commands", "greet.md"), "---\ndescription: greet someone\nargument-hint: NAME TITLE\nallowed-tools: Bash(touch:*)\n---\nSay hello to $1, known as $2. All: $ARGUMENTS\n");
        writeFileSync(join(home, "commands", "broken.md"), "---\ndescription: [unclosed\n---\nbody\n");
        writeFileSync(join(home, "commands", "status.md"), "shadowing a built-in\n");
      },
    });
    const notes = pane.screen();
    expect(notes).toContain("broken.md: front matter: not valid YAML");
    expect(notes).toContain("status.md: name: /status is one of SCV's own commands");
    pane.type("/help");
    pane.keys("Enter");
    await pane.waitFor("/greet NAME TITLE — greet someone (your command)");
    fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch made-by-command" } }]), text("greeted"));
    pane.type("/gre");
    await pane.waitFor("greet someone (your command)");
    pane.keys("Tab");
    pane.type('Bob "the builder"');
    pane.keys("Enter");
    const screen = await pane.waitFor("greeted");
    expect(lastUserText(fake)).toContain('Say hello to Bob, known as the builder. All: Bob "the builder"');
    expect(screen).not.toContain("Allow bash?"); // no card: the command's allowed-tools approved it
    expect(screen).toMatch(/✓ \$ touch made-by-command \(exit 0, [\d.]+ s · allowed by the command's allowed-tools\)/);
    expect(await Bun.file(join(workspace, "made-by-command")).exists()).toBe(true);
    // The same command outside the command's turn asks.
    fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch again" } }]), text("done again"));
    pane.type("make another");
    pane.keys("Enter");
    await pane.waitFor("Allow bash?");
    pane.keys("y");
    const after = await pane.waitFor("done again");
    expect(after).toMatch(/✓ \$ touch again \(exit 0, [\d.]+ s\)\n/);
    expect(after.match(/touch again/g)).toHaveLength(1); // the card is gone once answered: one line for the call
  });

  test("/agents lists agent files beside the coding agents", async () => {
    const { pane } = await open({
      setup: ({ home }) => {
        mkdirSync(join(home, "agents", "scv"), { recursive: true });
        writeFileSync(join(home, "agents", "scv", "config.toml"), '[provider]\nactive = "scv"\n[providers.scv]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "nested-model"\napi_key = "sk-nested-tui"\n', { mode: 0o600 });
        writeFileSync(join(home, "agents", "reviewer.md"), "---\ndescription: reviews code\ntools: Read\n---\nReview.\n");
      },
    });
    pane.type("/agents");
    pane.keys("Enter");
    await pane.waitFor("agent reviewer · agent file · reviews code");
    expect(pane.screen()).toMatch(/agent scv · /);
  });

  test("a project's command files wait until the project is trusted", async () => {
    fake = await startFakeModel();
    const h = fakeHome(fake.url);
    mkdirSync(join(h.workspace, ".scv", "commands"), { recursive: true });
    writeFileSync(join(h.workspace, ".scv", "commands", "review.md"), "---\ndescription: review the diff\n---\nReview: $ARGUMENTS\n");
    pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace, width: 120, height: 40 });
    await pane.waitFor(/not\s+trusted yet/);
    pane.close();
    const trusted = await runBinary(["commands", "trust"], h.env, h.workspace);
    expect(trusted.stderr).toBe("");
    expect(trusted.code).toBe(0);
    const listed = await runBinary(["commands", "list"], h.env, h.workspace);
    expect(listed.stdout).toContain("/review");
    fake.queue(text("reviewed"));
    pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace, width: 120, height: 40 });
    await pane.waitFor(/s-[0-9a-f]{8}/);
    pane.type("/review src/x.ts");
    pane.keys("Enter");
    await pane.waitFor("reviewed");
    expect(lastUserText(fake)).toContain("Review: src/x.ts");
  });
});
