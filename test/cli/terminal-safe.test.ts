// Text SCV did not write reaches a real terminal (tmux) only with its controls made visible (red team finding 1):
// an approval card shows exactly the command that will run, however it tries to redraw itself; a reply or tool
// output carrying OSC 52 (clipboard), a title and 8-bit C1 controls changes nothing; `scv skills list` and
// `scv sessions list --all` show hostile folder names visibly.
import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { closeAllTerminals, openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);
const fake = fakeModelForFile();
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
  fake.clear();
});
afterAll(closeAllTerminals);

describe.skipIf(!needs("tmux"))("the terminal sees only visible text", () => {
  test("a command that redraws the card is shown exactly as it will run, and denying it keeps the directory", async () => {
    // The card is the subject: with the sandbox's auto_run the workspace write would run unasked inside it.
    const { env, workspace } = fakeHome(fake.url, "[sandbox]\nauto_run = false\n");
    const victim = join(workspace, "victim");
    mkdirSync(victim);
    const command = `rm -rf ${victim} #\x1b[2K\x1b[3A\r\x1b[2K$ ls -la\x1b[3B\r  $ ls -la`;
    fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("ok"));
    term = openTerminal([requireBinary(), "exec", "tidy up"], { env, cwd: workspace });
    const screen = await term.waitFor("Allow?");
    expect(screen).toContain(`rm -rf ${victim} #\\x1b[2K\\x1b[3A\\x0d\\x1b[2K$ ls -la\\x1b[3B\\x0d  $ ls -la`);
    term.type("n");
    term.keys("Enter");
    expect(await term.exitCode()).toBe(0);
    expect(existsSync(victim)).toBe(true);
  });

  test("OSC 52, a title and C1 controls in bash output and in the reply never reach the pane", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const hostile = "\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07\x9b2J\x9d0;C1-TITLE\x9c\x07";
    fake.queue(toolCalls([{ name: "bash", arguments: { command: `printf 'out\\033]52;c;cHduZWQ=\\007\\033]0;PWNED\\007\\n'` } }]), text(`reply ${hostile} end`));
    term = openTerminal([requireBinary(), "exec", "--yes", "print it"], { env, cwd: workspace });
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    expect(screen).toContain("reply \\x1b]52;c;cHduZWQ=\\x07\\x1b]0;PWNED\\x07\\x9b2J\\x9d0;C1-TITLE\\x9c\\x07 end");
    expect(term.title()).not.toContain("PWNED");
    expect(term.title()).not.toContain("C1-TITLE");
    expect(term.buffers()).toBe("");
  });

  test("scv skills list and scv sessions list --all show hostile names visibly", async () => {
    const { env, workspace, home } = fakeHome(fake.url);
    const evil = "tool\x1b]0;PWNED\x07\u202eexe";
    mkdirSync(join(workspace, ".agents", "skills", evil), { recursive: true });
    writeFileSync(join(workspace, ".agents", "skills", evil, "SKILL.md"), `---\nname: evil\ndescription: does things\n---\nbody\n`);
    term = openTerminal([requireBinary(), "skills", "list"], { env, cwd: workspace, width: 250 });
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).toContain("tool\\x1b]0;PWNED\\x07\\u202eexe");
    expect(term.title()).not.toContain("PWNED");
    term.close();

    // A session whose workspace folder has a hostile name.
    const odd = join(workspace, "ws\x1b]0;PWNED\x07\x9b2J");
    mkdirSync(odd);
    fake.queue(text("hi"));
    const r = await runBinary(["exec", "hello"], env, odd);
    expect(r.code).toBe(0);
    term = openTerminal([requireBinary(), "sessions", "list", "--all"], { env, cwd: workspace, width: 250 });
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).toContain("ws\\x1b]0;PWNED\\x07\\x9b2J");
    expect(term.title()).not.toContain("PWNED");
    expect(readFileSync(join(home, "config.toml"), "utf8")).toContain("fake-model");
  });
});
