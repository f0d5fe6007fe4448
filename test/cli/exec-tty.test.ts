// `dist/scv` in a real terminal (tmux) against the scripted model endpoint: what a person types and sees.
import { afterAll, afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary } from "../fake/binary";
import { errorReply, hang, text, toolCalls } from "../fake/model-server";
import { closeAllTerminals, openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

// Each test waits on a real terminal with its own deadlines; under load that takes longer than the default.
setDefaultTimeout(60_000);

// A model endpoint per test, so a late request from one test's run can never take another test's reply.
const fake = fakeModelForEachTest();
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});
afterAll(closeAllTerminals);

const SGR = /\x1b\[[0-9;]*m/;

/** Sandboxed commands run unasked by default (sandbox.auto_run); these tests are about the card, so commands ask. */
const COMMANDS_ASK = "[sandbox]\nauto_run = false\n";

function scv(args: string[], opts: { env?: Record<string, string>; extraConfig?: string } = {}) {
  const h = fakeHome(fake.url, `${COMMANDS_ASK}${opts.extraConfig ?? ""}`);
  term = openTerminal([requireBinary(), ...args], { env: { ...h.env, ...opts.env }, cwd: h.workspace });
  return { ...h, term };
}

function bash(command: string) {
  return toolCalls([{ name: "bash", arguments: { command } }]);
}

describe.skipIf(!needs("tmux"))("arguments", () => {
  test("an unknown option is refused with exit 2, naming it and showing the usage", async () => {
    const { term } = scv(["exec", "--frobnicate", "hi"]);
    expect(await term.exitCode()).toBe(2);
    expect(term.screen()).toContain('scv exec: unknown option "--frobnicate"');
    expect(term.screen()).toContain("Usage: scv exec [options] PROMPT");
    expect(fake.requests.length).toBe(0);
  });

  test("extra words are refused with exit 2 and a hint to quote the prompt", async () => {
    const { term } = scv(["exec", "list", "the", "files"]);
    expect(await term.exitCode()).toBe(2);
    expect(term.screen()).toContain('unexpected argument "the"; quote a prompt of several words: scv exec "list the files"');
    expect(fake.requests.length).toBe(0);
  });

  test("-m picks the model and the next word stays the prompt", async () => {
    fake.queue(text("summary done"));
    const before = fake.requests.length;
    const { term } = scv(["exec", "-m", "gpt-other", "summarise"]);
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).toContain("summary done");
    const body = fake.requests[before]!.body;
    expect(body.model).toBe("gpt-other");
    expect(JSON.stringify(body.input)).toContain("summarise");
  });
});

describe.skipIf(!needs("tmux"))("the approval question", () => {
  test("Ctrl-C denies the call and cancels the turn at once: exit 130, nothing ran", async () => {
    const { term, workspace } = scv(["exec", "make a marker"]);
    fake.queue(bash("touch marker"), text("should not be reached"));
    await term.waitFor("[y/N/a]");
    expect(term.screen()).toContain("$ touch marker");
    term.keys("C-c");
    expect(await term.exitCode(10_000)).toBe(130);
    expect(existsSync(join(workspace, "marker"))).toBe(false);
    expect(term.screen()).not.toContain("should not be reached");
  });

  test("Ctrl-D denies the call and the turn goes on", async () => {
    const { term, workspace } = scv(["exec", "make a marker"]);
    fake.queue(bash("touch marker"), text("carried on without it"));
    await term.waitFor("[y/N/a]");
    term.keys("C-d");
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    expect(screen).toContain("[y/N/a] ^D\n$ touch marker (denied)\n");
    expect(screen).toContain("carried on without it");
    expect(existsSync(join(workspace, "marker"))).toBe(false);
  });

  test("another key asks again; `a` answers at once and approves identical calls for the rest of the run", async () => {
    const { term, workspace } = scv(["exec", "count"]);
    fake.queue(bash("echo x >> tally"), bash("echo x >> tally"), bash("echo y >> tally"), text("counted"));
    await term.waitFor("[y/N/a]");
    term.type("x");
    await term.waitFor("Please answer y (yes), n (no) or a (always");
    term.type("a"); // no Enter: a single key answers on a terminal
    // The identical second call runs unasked; the third differs and is asked about.
    // One line per call: the second call's line says how it was approved.
    await term.waitFor(/\$ echo x >> tally \(exit 0, \d+\.\d s; approved: identical to one allowed with a\)/);
    await term.waitFor(/\$ echo y >> tally\n[\s\S]*\[y\/N\/a\]/);
    term.type("n");
    await term.waitFor("why not?"); // n asks why; Enter alone denies without a reason
    term.keys("Enter");
    expect(await term.exitCode()).toBe(0);
    expect(readFileSync(join(workspace, "tally"), "utf8")).toBe("x\nx\n");
    expect(term.screen()).toMatch(/\[y\/N\/a\] x\n.*: a\n\$ echo x >> tally \(exit 0, \d+\.\d s\)\n\$ echo x >> tally \(exit 0, \d+\.\d s; approved: identical to one allowed with a\)\n\$ echo y >> tally\n/);
  });

  test("`y` alone runs the call at once, Enter alone denies, and the terminal is back in line mode afterwards", async () => {
    const { term, workspace } = scv(["exec", "make markers"]);
    fake.queue(bash("touch one"), bash("touch two"), text("done with markers"));
    await term.waitFor("[y/N/a]");
    term.type("y");
    await term.waitFor(/\$ touch one \(exit 0/);
    await term.waitFor(/\$ touch two\n[\s\S]*\[y\/N\/a\]/);
    await Bun.sleep(500); // an Enter within 0.4 s of a single-key answer is taken as habit and swallowed
    term.keys("Enter");
    expect(await term.exitCode()).toBe(0);
    expect(existsSync(join(workspace, "one"))).toBe(true);
    expect(existsSync(join(workspace, "two"))).toBe(false);
    expect(term.screen()).toContain("$ touch two (denied)");
    // What runs in the pane afterwards (sleep) has a cooked terminal: what is typed is echoed, as it is not in raw mode.
    term.type("typed-after-exit");
    await term.waitFor("typed-after-exit");
  });

  test("a write replace shows a unified diff and the risk in words; create shows the first lines", async () => {
    const { term, workspace } = scv(["exec", "edit"]);
    writeFileSync(join(workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
    fake.queue(
      toolCalls([{ name: "write", arguments: { path: "notes.txt", content: "alpha\nBETA\ngamma\n", mode: "replace" } }]),
      toolCalls([{ name: "write", arguments: { path: "new.txt", content: "first line\nsecond line\n", mode: "create" } }]),
      text("edited"),
    );
    let screen = await term.waitFor("[y/N/a/t]");
    for (const line of ["Approve write? It changes files in the workspace (filesystem).", "+1 -1 lines:", "@@ -1,3 +1,3 @@", " alpha", "-beta", "+BETA", " gamma"]) {
      expect(screen).toContain(line);
    }
    term.type("y");
    term.keys("Enter"); // the Enter of habit after a single key is swallowed, not taken as the next answer
    screen = await term.waitFor(/new file, 2 lines:\n\s*\+first line\n\s*\+second line\nor t: don't ask again for write in this run\nAllow\?/);
    term.type("y");
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).toContain("write notes.txt (+1 -1 lines)");
    expect(term.screen()).toContain("write new.txt (+2 -0 lines)");
    // The card showed the change; the call's line does not print the diff again (issue 56).
    expect(term.screen().match(/\+BETA/g)).toHaveLength(1);
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
  });
});

describe.skipIf(!needs("tmux"))("signs of life", () => {
  test("while the model says nothing a waiting line counts the seconds", async () => {
    fake.queue(hang());
    const { term } = scv(["exec", "think"]);
    await term.waitFor(/waiting for the model… [1-9]\d* s/);
    term.keys("C-c");
    expect(await term.exitCode()).toBe(130);
  });

  test("each provider retry is shown", async () => {
    const h = fakeHome(fake.url);
    writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8").replace("max_retries = 0", "max_retries = 2"));
    fake.queue(errorReply("rate_limit", { "retry-after-ms": "1500" }), text("got through"));
    term = openTerminal([requireBinary(), "exec", "hi"], { env: h.env, cwd: h.workspace });
    expect(await term.exitCode()).toBe(0);
    expect(term.screen()).toContain("retrying in 1.5 s after HTTP 429 (1/2)");
    expect(term.screen()).toContain("got through");
  });
});

describe.skipIf(!needs("tmux"))("output of a running command", () => {
  test("a call with no output yet shows how long it has been running", async () => {
    const { term } = scv(["exec", "-y", "wait"]);
    fake.queue(bash("sleep 2.5"), text("waited"));
    await term.waitFor(/\$ sleep 2\.5\n  running… [1-9] s/);
    expect(await term.exitCode()).toBe(0);
    // At least the 2.5 s it slept; more on a busy machine (the launcher's start counts too).
    expect(term.screen()).toMatch(/\$ sleep 2\.5 \(exit 0, (?:2\.[5-9]|[3-9]\.\d|\d{2,}\.\d) s\)\nwaited\n/);
  });

  test("the last output line replaces the one before and is gone when the command ends", async () => {
    const { term } = scv(["exec", "-y", "count"]);
    fake.queue(bash("for i in 1 2 3 4; do echo tick-$i; sleep 0.7; done"), text("counted"));
    await term.waitFor("  tick-");
    await term.waitFor(/  tick-[3-4]/);
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    expect(screen).toMatch(/\$ for i in 1 2 3 4; do echo tick-\$i; sleep 0\.7; done \(exit 0, \d+\.\d s\)\ncounted\n/);
    expect(screen).not.toContain("tick-1");
  });
});

describe.skipIf(!needs("tmux"))("colour", () => {
  test("on a terminal the approval card and --help are coloured; NO_COLOR turns both off", async () => {
    for (const noColor of [false, true]) {
      const env: Record<string, string> = noColor ? { NO_COLOR: "1" } : {};
      fake.queue(bash("touch coloured"), text("fine"));
      const { term } = scv(["exec", "go"], { env });
      await term.waitFor("[y/N/a]");
      expect(SGR.test(term.screen({ escapes: true }))).toBe(!noColor);
      term.keys("C-c");
      expect(await term.exitCode()).toBe(130);
      term.close();
      fake.clear();
      const help = scv(["exec", "--help"], { env }).term;
      expect(await help.exitCode()).toBe(0);
      expect(help.screen()).toContain("Exit codes:");
      expect(SGR.test(help.screen({ escapes: true }))).toBe(!noColor);
      help.close();
    }
  });
});

describe.skipIf(!needs("tmux"))("the plan", () => {
  test("on a terminal each plan change is shown on stderr", async () => {
    const items = (status: string) => [
      { text: "read the logs", status: "done" },
      { text: "find the cause", status },
    ];
    fake.queue(
      toolCalls([{ name: "plan", arguments: { items: items("in_progress") } }]),
      toolCalls([{ name: "plan", arguments: { items: items("done") } }]),
      text("Found it."),
    );
    const { term } = scv(["exec", "investigate"]);
    expect(await term.exitCode()).toBe(0);
    const screen = term.screen();
    // The plan's steps under the call's line, which says how far it is: each change once.
    expect(screen).toContain("plan: 1/2 done\n  [x] read the logs\n  [>] find the cause\n");
    expect(screen).toContain("plan: 2/2 done\n  [x] read the logs\n  [x] find the cause\n");
    expect(screen.match(/1\/2 done/g)).toHaveLength(1);
    expect(screen).toContain("Found it.");
  });
});
