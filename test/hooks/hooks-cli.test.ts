// Hook configuration through the compiled binary: a project file with hooks is refused, a misspelt event gets a
// "did you mean", a bad matcher names its key; `scv hooks list`; `scv hooks import claude` from a real Claude Code
// settings.json in a throwaway HOME (shown, asked, added once) whose hooks then work in a session.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();

const events = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const byMethod = (all: any[], method: string) => all.filter((e) => e.method === method).map((e) => e.params);

test("a project file that sets hooks is refused; a misspelt event and a bad matcher are config errors naming the key", async () => {
  const h = fakeHome(fake.url);
  mkdirSync(join(h.workspace, ".scv"));
  writeFileSync(join(h.workspace, ".scv", "config.toml"), '[[hooks.PreToolUse]]\ncommand = "touch pwned"\n');
  const refused = await runBinary(["exec", "hi"], h.env, h.workspace);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain("hooks.PreToolUse: a project file cannot set hooks");
  expect(refused.stderr).toContain(join(h.home, "config.toml"));
  expect(existsSync(join(h.workspace, "pwned"))).toBe(false);

  const typo = fakeHome(fake.url, '[[hooks.PreTooluse]]\ncommand = "true"\n');
  const t = await runBinary(["hooks", "list"], typo.env, typo.workspace);
  expect(t.code).not.toBe(0);
  expect(t.stderr).toContain("unknown key hooks.PreTooluse (did you mean `PreToolUse`?)");

  const bad = fakeHome(fake.url, '[[hooks.PostToolUse]]\nmatcher = "Edit|(Write"\ncommand = "true"\n');
  const m = await runBinary(["hooks", "list"], bad.env, bad.workspace);
  expect(m.code).not.toBe(0);
  expect(m.stderr).toContain("hooks.PostToolUse.0.matcher: is not a valid pattern");
}, 30_000);

/** A Claude Code user's settings, as Claude Code writes them. */
const CLAUDE_SETTINGS = {
  permissions: { allow: ["Bash(npm run lint)"] },
  hooks: {
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [{ type: "command", command: "if grep -q 'git push'; then echo 'pushing is for humans' >&2; exit 2; fi", timeout: 10 }],
      },
    ],
    PostToolUse: [{ matcher: "Edit|MultiEdit|Write", hooks: [{ type: "command", command: "cat > \"$CLAUDE_PROJECT_DIR/edited.json\"" }] }],
    Notification: [{ hooks: [{ type: "command", command: "notify-send 'Claude Code' 'Awaiting your input'" }] }],
    Stop: [{ hooks: [{ type: "prompt", prompt: "Is the work complete?" }] }],
    SubagentStop: [{ hooks: [{ type: "command", command: "true" }] }],
  },
};

test("scv hooks import claude shows what it adds, asks first, adds it once, and the imported hooks work", async () => {
  const h = fakeHome(fake.url);
  mkdirSync(join(h.env.HOME!, ".claude"), { recursive: true });
  writeFileSync(join(h.env.HOME!, ".claude", "settings.json"), JSON.stringify(CLAUDE_SETTINGS, null, 2));
  const configBefore = readFileSync(join(h.home, "config.toml"), "utf8");

  // Without a terminal and without --yes: shown, nothing written.
  const shown = await runBinary(["hooks", "import", "claude"], h.env, h.workspace);
  expect(shown.code).toBe(2);
  expect(shown.stderr).toContain("[[hooks.PreToolUse]]\nmatcher = \"Bash\"");
  expect(shown.stderr).toContain("timeout_seconds = 10");
  expect(shown.stderr).toContain('skipped Stop: a "prompt" hook; SCV runs command hooks only');
  expect(shown.stderr).toContain("skipped SubagentStop: SCV has no such event");
  expect(shown.stderr).toContain("pass --yes");
  expect(readFileSync(join(h.home, "config.toml"), "utf8")).toBe(configBefore);

  const added = await runBinary(["hooks", "import", "claude", "--yes"], h.env, h.workspace);
  expect(added.code).toBe(0);
  expect(added.stderr).toContain("added 3 hook(s)");
  const list = await runBinary(["hooks", "list"], h.env, h.workspace);
  expect(list.stdout).toContain("PreToolUse\n  Bash  $ if grep -q 'git push'");
  expect(list.stdout).toContain("PostToolUse\n  Edit|MultiEdit|Write  $ cat >");
  expect(list.stdout).toContain("Notification\n  *  $ notify-send");
  const again = await runBinary(["hooks", "import", "claude", "--yes"], h.env, h.workspace);
  expect(again.stderr).toContain("3 hook(s) already in");
  expect(again.stderr).toContain("nothing to add");

  // The imported hooks, unchanged, in a session: the push is refused with the hook's words; the write is seen.
  fake.queue(
    toolCalls([
      { name: "bash", arguments: { command: "git push origin main" } },
      { name: "write", arguments: { path: "a.txt", content: "x", mode: "create" } },
    ]),
    text("ok"),
  );
  const r = await runBinary(["exec", "--json", "--yes", "push and write"], h.env, h.workspace);
  expect(r.code).toBe(0);
  const done = byMethod(events(r.stdout), "tool.completed");
  expect(done[0]).toMatchObject({ denied: true, hook: { event: "PreToolUse", reason: "pushing is for humans" } });
  expect(done[1].ok).toBe(true);
  expect(JSON.parse(readFileSync(join(h.workspace, "edited.json"), "utf8"))).toMatchObject({ tool_name: "write", claude_tool_name: "Write" });
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("pushing is for humans");
}, 30_000);
