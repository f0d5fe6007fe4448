// The compiled binary's interactive session, driven in a real terminal (tmux) against the scripted model.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASH, FAKE_AGENT, signIn } from "../fake/agent-harness";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { alive, pidsWithArgv } from "../fake/proc";
import { openTerminal, type Terminal } from "../fake/tmux";

setDefaultTimeout(30_000);

let fake: FakeModel | undefined;
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

/** Sandboxed commands run unasked by default (sandbox.auto_run); these tests are about the card, so commands ask. */
const COMMANDS_ASK = "[sandbox]\nauto_run = false\n";

async function open(opts: { extraConfig?: string; env?: Record<string, string>; width?: number; height?: number; args?: string[] } = {}) {
  fake = await startFakeModel();
  const h = fakeHome(fake.url, `${COMMANDS_ASK}${opts.extraConfig ?? ""}`);
  pane = openTerminal([requireBinary(), ...(opts.args ?? [])], { env: { ...h.env, ...opts.env }, cwd: h.workspace, width: opts.width, height: opts.height });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  return { ...h, fake, pane };
}

const promptLine = (screen: string) => screen.split("\n").filter((l) => l.startsWith("›") && !l.startsWith("› ") ).length;

describe("scv in a terminal", () => {
  test("a streamed turn with a tool call approved with y, rendered readably", async () => {
    const { fake, pane, workspace } = await open();
    writeFileSync(join(workspace, "notes.txt"), "remember the milk\n");
    fake.queue(
      // `tee` writes a file, so the command guard leaves it to approval.
      toolCalls([{ name: "bash", arguments: { command: "cat notes.txt | tee copy.txt" } }], { text: "Let me look." }),
      text("## Notes\n\n- item **one**\n\n```sh\necho hi\n```\nAll done."),
    );
    pane.type("what is in my notes?");
    pane.keys("Enter");
    await pane.waitFor("y approve once");
    expect(pane.screen()).toContain("process: runs a command on this machine");
    pane.keys("y");
    const screen = await pane.waitFor("All done.");
    expect(screen).toContain("› what is in my notes?");
    expect(screen).toContain("Let me look.");
    // One line per call: the approval folds into the call's line, and `exit 0` is not said twice.
    expect(screen).toMatch(/✓ \$ cat notes.txt \| tee copy.txt \(exit 0, [\d.]+ s\)\n.*└ remember the milk/);
    expect(screen).not.toContain("✓ approved");
    expect(screen).toContain("• item one");
    expect(screen).toContain("┌─ sh");
    expect(screen).not.toContain("```");
  });

  test("a denied call says denied and the turn goes on; Esc denies too", async () => {
    const { fake, pane } = await open();
    fake.queue(
      toolCalls([{ name: "bash", arguments: { command: "touch a" } }]),
      toolCalls([{ name: "bash", arguments: { command: "touch b" } }]),
      text("Nothing was changed."),
    );
    pane.type("touch things");
    pane.keys("Enter");
    await pane.waitFor("y approve once");
    pane.keys("n");
    await pane.waitFor("what should it do instead?"); // n asks why; Enter alone denies without a reason
    pane.keys("Enter");
    await pane.waitFor(/denied[\s\S]*y approve once/);
    pane.keys("Escape");
    const screen = await pane.waitFor("Nothing was changed.");
    // One line per denied call (the answer folds into the call's line).
    expect(screen.match(/⊘ \$ touch [ab] denied/g)?.length).toBe(2);
    expect(screen).not.toContain("✗ denied");
    expect(screen).not.toContain("failed");
  });

  test("a approves identical calls for the rest of the session, and only those", async () => {
    const { fake, pane, workspace } = await open();
    const same = { name: "bash", arguments: { command: "echo x >> log.txt" } };
    fake.queue(toolCalls([same]), toolCalls([same]), toolCalls([{ name: "bash", arguments: { command: "echo other >> other.txt" } }]), text("finished"));
    pane.type("append twice");
    pane.keys("Enter");
    await pane.waitFor("y approve once");
    pane.keys("a");
    await pane.waitFor(/echo other[\s\S]*y approve once/);
    pane.keys("y");
    await pane.waitFor("finished");
    expect(await Bun.file(join(workspace, "log.txt")).text()).toBe("x\nx\n");
    expect(fake.requests.length).toBe(4);
  });

  test("read-only commands run unasked; the card says why the guard asks and p keeps the offered rule", async () => {
    const { fake, pane, workspace, home } = await open({ width: 160 });
    fake.queue(
      toolCalls([{ name: "bash", arguments: { command: "ls" } }]),
      toolCalls([{ name: "bash", arguments: { command: "touch first" } }]),
      toolCalls([{ name: "bash", arguments: { command: "touch first second" } }]),
      text("made them"),
    );
    pane.type("make files");
    pane.keys("Enter");
    await pane.waitFor("y approve once");
    const card = pane.screen();
    expect(card).toContain("$ ls (exit 0"); // ran before anyone was asked
    expect(card).toContain("guard: asks because `touch` is not a known read-only program");
    expect(card).toContain("p always allow commands starting with `touch first` in this project");
    pane.keys("p");
    const screen = await pane.waitFor("made them");
    expect(screen).toMatch(/✓ \$ touch first \(exit 0, [\d.]+ s · approved and kept as a rule\)\n✓ \$ touch first second \(exit 0, [\d.]+ s\)\n/);
    expect(screen.match(/y approve once/g) ?? []).toHaveLength(0);
    expect(readdirSync(workspace).sort()).toEqual(["first", "second"]);
    expect(JSON.parse(await Bun.file(join(home, "approval-rules.json")).text()).rules[0]).toMatchObject({ prefix: ["touch", "first"], workspace });
  });

  test("Ctrl-C during a tool cancels the turn at once and stops its process; a second Ctrl-C exits", async () => {
    const { fake, pane, workspace } = await open();
    // Found out here by its unique argv: a pid the command wrote may be its PID namespace's (sandboxed).
    const duration = String(3000 + Math.floor(Math.random() * 5000));
    fake.queue(toolCalls([{ name: "bash", arguments: { command: `echo $$ > pid.txt; sleep ${duration}` } }]));
    pane.type("wait a minute");
    pane.keys("Enter");
    await pane.waitFor("y approve once");
    pane.keys("y");
    await pane.waitFor(/⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏/);
    const pidFile = join(workspace, "pid.txt");
    for (let i = 0; i < 500 && !(await Bun.file(pidFile).exists()); i++) await Bun.sleep(50); // up to 25 s
    let pid = 0;
    for (let i = 0; i < 500 && !pid; i++) {
      pid = pidsWithArgv(["sleep", duration])[0] ?? 0;
      if (!pid) await Bun.sleep(50);
    }
    expect(alive(pid)).toBe(true);
    pane.keys("C-c");
    const screen = await pane.waitFor("⊘ cancelled", 20_000);
    expect(screen).toContain("cancelled");
    for (let i = 0; i < 500 && alive(pid); i++) await Bun.sleep(50); // up to 25 s
    expect(alive(pid)).toBe(false);
    expect(screen).toMatch(/⊘ .*echo.*cancelled|⊘ bash cancelled/);
    await Bun.sleep(2_100); // past the double-press window
    pane.keys("C-c");
    await pane.waitFor("press Ctrl-C again");
    pane.keys("C-c");
    expect(await pane.exitCode(20_000)).toBe(0);
  });

  test("a background job's report is shown like a turn, marked as a report", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scv-tui-agent-"));
    const stdoutFile = join(dir, "stdout.txt");
    writeFileSync(stdoutFile, "fixed the parser");
    try {
      const { fake, pane, home } = await open({
        extraConfig: `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`,
        env: { FAKE_AGENT_STDOUT: stdoutFile, FAKE_AGENT_SLEEP: "1" },
      });
      signIn(home, "dsh");
      fake.queue(
        toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "fix the parser", background: true } }]),
        text("Started job-1."),
        text("The agent fixed the parser."),
      );
      // A fresh session offers dsh now that it is signed in.
      pane.type("/new");
      pane.keys("Enter");
      await pane.waitFor(/session s-[0-9a-f]{8}[\s\S]*session s-[0-9a-f]{8}/);
      pane.type("fix it in the background");
      pane.keys("Enter");
      await pane.waitFor("y approve once");
      pane.keys("y");
      await pane.waitFor("jobs: job-1");
      const screen = await pane.waitFor("The agent fixed the parser.", 15_000);
      expect(screen).toContain("◆ background report: job-1");
      expect(screen).not.toContain("jobs: job-1");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("exiting with a job running says how many jobs it stops, and stops the agent", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "scv-tui-agent-"));
    const stdoutFile = join(logDir, "stdout.txt");
    writeFileSync(stdoutFile, "never reported");
    try {
      const { fake, pane, home } = await open({
        extraConfig: `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`,
        env: { FAKE_AGENT_STDOUT: stdoutFile, FAKE_AGENT_SLEEP: "60", FAKE_AGENT_LOG: logDir },
      });
      signIn(home, "dsh");
      fake.queue(toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "a long job", background: true } }]), text("Started job-1."));
      pane.type("/new");
      pane.keys("Enter");
      await pane.waitFor(/session s-[0-9a-f]{8}[\s\S]*session s-[0-9a-f]{8}/);
      pane.type("start a long job");
      pane.keys("Enter");
      await pane.waitFor("y approve once");
      pane.keys("y");
      await pane.waitFor("jobs: job-1");
      let agentPid = 0;
      for (let i = 0; i < 100 && !agentPid; i++) {
        const cwdFile = readdirSync(logDir).find((f) => f.endsWith(".cwd"));
        if (cwdFile) agentPid = Number(cwdFile.replace(/\.cwd$/, "").split("-").at(-1));
        else await Bun.sleep(50);
      }
      expect(alive(agentPid)).toBe(true);
      pane.keys("C-d");
      expect(await pane.exitCode(20_000)).toBe(0);
      expect(pane.screen()).toContain("exiting: stopping 1 background job");
      for (let i = 0; i < 500 && alive(agentPid); i++) await Bun.sleep(50); // up to 25 s
      expect(alive(agentPid)).toBe(false);
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  });

  test("/memory shows what SCV remembers; a memory file over its cap is noted when the session starts", async () => {
    const { mkdirSync } = await import("node:fs");
    fake = await startFakeModel();
    const h = fakeHome(fake.url, "[memory]\nuser_max_bytes = 256\n");
    mkdirSync(join(h.home, "memory"), { recursive: true });
    writeFileSync(join(h.home, "memory", "USER.md"), `- Call me Sam.\n${"- filler note to pass the cap\n".repeat(10)}`);
    pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
    await pane.waitFor(/s-[0-9a-f]{8}/);
    expect(pane.screen()).toContain("over its cap of 256");
    pane.type("/memory");
    pane.keys("Enter");
    const screen = await pane.waitFor("Project notes for");
    expect(screen).toMatch(/USER\.md: 315 bytes of 256 bytes, over its cap · /);
    expect(screen).toContain("- Call me Sam.");
  });

  test("/resume and --resume pick a stored session, show its turns and continue it; --continue opens the newest", async () => {
    const { fake, workspace, env } = await open();
    let p = pane!;
    fake.queue(text("The capital is Paris."));
    p.type("remember: the capital of France");
    p.keys("Enter");
    await p.waitFor("The capital is Paris.");
    const first = /session (s-[0-9a-f]{8})/.exec(p.screen())![1]!;
    p.type("/new");
    p.keys("Enter");
    await p.waitFor(/session s-[0-9a-f]{8}[\s\S]*session s-[0-9a-f]{8}/);
    p.type("/resume");
    p.keys("Enter");
    await p.waitFor("Resume which session?");
    expect(p.screen()).toContain(`› ${first}`);
    p.keys("Enter");
    await p.waitFor(`resumed ${first}`);
    expect(p.screen()).toContain("› remember: the capital of France");
    fake.queue(text("Still Paris."));
    p.type("and again?");
    p.keys("Enter");
    await p.waitFor("Still Paris.");
    // The model saw the earlier turn.
    expect(JSON.stringify(fake.requests.at(-1)!.body.input)).toContain("The capital is Paris.");
    p.keys("C-d");
    await p.waitFor("[exit 0]");
    p.close();

    p = pane = openTerminal([requireBinary(), "--resume"], { env, cwd: workspace });
    await p.waitFor("Resume which session?");
    p.keys("Enter");
    await p.waitFor(`resumed ${first}`);
    expect(p.screen()).toContain("Still Paris.");
    p.keys("C-d");
    await p.waitFor("[exit 0]");
    p.close();

    p = pane = openTerminal([requireBinary(), "--continue"], { env, cwd: workspace });
    await p.waitFor(`resumed ${first}`);
    expect(p.screen()).toContain("› and again?");
  });

  test("the status line shows the session's tokens and cost; /usage splits them by who spent them", async () => {
    const { fake, pane } = await open({ extraConfig: '[prices."fake-model"]\ninput_per_mtok = 1000\noutput_per_mtok = 2000\n' });
    fake.queue(text("counted", { usage: { input_tokens: 1200, output_tokens: 300 } }));
    pane.type("count me");
    pane.keys("Enter");
    // 1,200 input at 1000 and 300 output at 2000 per million: 1.2 + 0.6.
    const screen = await pane.waitFor("1,500 tokens · cost 1.80");
    expect(screen.trimEnd().split("\n").at(-1)).toContain("1,500 tokens · cost 1.80");
    pane.type("/usage");
    pane.keys("Enter");
    const shown = await pane.waitFor("today, everything SCV ran");
    expect(shown).toContain("this session: 1,500 tokens · cost 1.80 (scv (own model) 1,500)");
    expect(shown).toContain("today, everything SCV ran: 1,500 tokens · cost 1.80");
  });

  test("resizing never duplicates the prompt or leaves a broken frame", async () => {
    const { fake, pane } = await open({ width: 100, height: 30 });
    fake.queue(text("word ".repeat(60).trim()));
    pane.type("say many words");
    pane.keys("Enter");
    await pane.waitFor("word word");
    await pane.waitFor((s) => !/⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏/.test(s));
    pane.type("draft text");
    for (const [w, h] of [[50, 20], [30, 24], [80, 24]] as const) {
      pane.resize(w, h);
      await Bun.sleep(300);
      const screen = await pane.waitFor("draft text");
      expect(screen.split("\n").filter((l) => l.startsWith("› draft text")).length).toBe(1);
      expect(screen.split("\n").filter((l) => /^  fake-model · s-/.test(l)).length).toBe(1);
    }
    expect(promptLine(pane.screen())).toBe(0);
  });

  test("colour on a terminal, none with NO_COLOR; Ctrl-D on an empty prompt exits and restores the terminal", async () => {
    {
      const { fake, pane } = await open();
      fake.queue(text("**bold** reply"));
      pane.type("hi");
      pane.keys("Enter");
      await pane.waitFor("bold reply");
      expect(pane.screen({ escapes: true })).toMatch(/\x1b\[[0-9;]*1m/);
      pane.close();
      await fake.close();
      removeFakeHomes();
    }
    fake = await startFakeModel();
    const h = fakeHome(fake.url);
    // A shell around scv shows the terminal modes before and after.
    const script = `stty -g > before.txt; ${requireBinary()}; status=$?; stty -g > after.txt; exit $status`;
    pane = openTerminal([BASH, "-c", script], { env: { ...h.env, NO_COLOR: "1" }, cwd: h.workspace });
    await pane.waitFor(/s-[0-9a-f]{8}/);
    fake.queue(text("**bold** reply"));
    pane.type("hi");
    pane.keys("Enter");
    await pane.waitFor("bold reply");
    const screen = pane.screen({ escapes: true });
    expect(screen).not.toMatch(/\x1b\[[0-9;]*m/);
    pane.keys("C-d");
    await pane.waitFor("[exit 0]");
    await Bun.sleep(100);
    expect(await Bun.file(join(h.workspace, "after.txt")).text()).toBe(await Bun.file(join(h.workspace, "before.txt")).text());
  });
});
