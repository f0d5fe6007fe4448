// Hooks through the compiled binary with the scripted model: each event fires with Claude Code's input, exit 2 and
// a JSON deny refuse a call with the reason reaching the model, an `allow` spares a prompt call's question on a
// pipe but never lifts a guard block, SessionStart and UserPromptSubmit context reaches the request, a Stop hook
// sends the model back to work and is cut off, a PostToolUse formatter runs after an edit, and a hook that hangs
// is killed at its timeout leaving no process.
import { expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { pidsWithArgv } from "../fake/proc";

const fake = fakeModelForFile();

const events = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const byMethod = (all: any[], method: string) => all.filter((e) => e.method === method).map((e) => e.params);

/** A fake home whose user config has `toml` appended ($ROOT: the temporary root, where hooks write what they saw). */
function withHooks(toml: string) {
  const h = fakeHome(fake.url);
  const root = dirname(h.home);
  appendFileSync(join(h.home, "config.toml"), `\n${toml.replaceAll("$ROOT", root)}\n`);
  return { ...h, root, read: (name: string) => readFileSync(join(root, name), "utf8") };
}

const lastRequest = () => JSON.stringify(fake.requests.at(-1)!.body);

test("PreToolUse exit 2 refuses a bash call: the model gets stderr, the card line and tool.completed name the hook", async () => {
  const h = withHooks(`[[hooks.PreToolUse]]\nmatcher = "Bash"\ncommand = "cat > $ROOT/pre.json; env > $ROOT/pre.env; echo 'no shell in this repo' >&2; exit 2"`);
  h.env.OPENAI_API_KEY = "sk-hooktest-0123456789abcdefghij";
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch made.txt" }, id: "call_1" }]), text("understood"));
  const r = await runBinary(["exec", "--json", "--yes", "make a file"], h.env, h.workspace);
  expect(r.code).toBe(0);
  const all = events(r.stdout);
  const done = byMethod(all, "tool.completed")[0];
  expect(done.denied).toBe(true);
  expect(done.hook).toMatchObject({ event: "PreToolUse", decision: "deny", reason: "no shell in this repo" });
  expect(existsSync(join(h.workspace, "made.txt"))).toBe(false);
  expect(lastRequest()).toContain("no shell in this repo");
  // --json records what each hook did.
  const ran = byMethod(all, "hook.completed");
  expect(ran).toHaveLength(1);
  expect(ran[0]).toMatchObject({ event: "PreToolUse", call_id: "call_1", hooks: [{ verdict: "block", exit_code: 2, reason: "no shell in this repo" }] });
  // Claude Code's input on stdin: the common fields, SCV's tool name with Claude Code's beside it.
  const input = JSON.parse(h.read("pre.json"));
  const sessionId = byMethod(all, "turn.started")[0].session_id;
  expect(input).toMatchObject({ session_id: sessionId, cwd: realpathSync(h.workspace), hook_event_name: "PreToolUse", tool_name: "bash", claude_tool_name: "Bash", tool_use_id: "call_1" });
  expect(input.tool_input.command).toBe("touch made.txt");
  // The environment bash gets plus the hook variables; never SCV's keys.
  const env = h.read("pre.env");
  expect(env).toContain(`CLAUDE_PROJECT_DIR=${realpathSync(h.workspace)}\n`);
  expect(env).toContain(`SCV_SESSION_ID=${sessionId}\n`);
  expect(env).toContain("SCV_HOOK_EVENT=PreToolUse\n");
  expect(env).not.toContain("sk-hooktest");

  fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch made.txt" } }]), text("understood"));
  const plain = await runBinary(["exec", "--yes", "make a file"], h.env, h.workspace);
  expect(plain.stderr).toContain("$ touch made.txt (blocked by PreToolUse hook `cat > ");
  expect(plain.stderr).toContain(": no shell in this repo)");
}, 30_000);

test("a JSON deny refuses an edit under dist/ (Claude Code's Edit|Write matcher); the same hook lets src/ through", async () => {
  // The docs' second example, as a Claude Code user would write it (no jq needed).
  const h = withHooks(`[[hooks.PreToolUse]]
matcher = "Edit|MultiEdit|Write"
command = '''
input=$(cat)
case "$input" in
  *'"file_path":"'*/dist/*) printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"dist/ is generated; change src/ and rebuild"}}' ;;
esac
'''`);
  fake.queue(toolCalls([{ name: "write", arguments: { path: "dist/app.js", content: "x", mode: "create" } }, { name: "write", arguments: { path: "src/app.ts", content: "y", mode: "create" } }]), text("done"));
  const r = await runBinary(["exec", "--json", "--yes", "write both"], h.env, h.workspace);
  expect(r.code).toBe(0);
  const done = byMethod(events(r.stdout), "tool.completed");
  expect(done.map((d) => [d.ok, d.denied ?? false])).toEqual([[false, true], [true, false]]);
  expect(done[0].output).toContain("dist/ is generated; change src/ and rebuild");
  expect(existsSync(join(h.workspace, "dist", "app.js"))).toBe(false);
  expect(readFileSync(join(h.workspace, "src", "app.ts"), "utf8")).toBe("y");
  expect(lastRequest()).toContain("dist/ is generated");
}, 30_000);

/** Sandboxed commands the guard would ask about run unasked by default (sandbox.auto_run); these tests need them to ask. */
const ASKING = "[sandbox]\nauto_run = false\n";

test("a hook's allow answers a prompt call on a pipe, but never lifts a guard block or an unsandboxed request", async () => {
  const allow = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"trusted here"}}'`;
  // Control: the hook matches only Write, so on a pipe nobody can answer the bash call's question.
  const control = withHooks(`${ASKING}[[hooks.PreToolUse]]\nmatcher = "Write"\ncommand = '''${allow}'''`);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch allowed.txt" } }]), text("no"));
  const denied = await runBinary(["exec", "--json", "make it"], control.env, control.workspace);
  expect(denied.code).toBe(4);
  expect(existsSync(join(control.workspace, "allowed.txt"))).toBe(false);

  const h = withHooks(`${ASKING}[[hooks.PreToolUse]]\nmatcher = "Bash"\ncommand = '''${allow}'''`);
  mkdirSync(h.env.HOME!, { recursive: true });
  writeFileSync(join(h.env.HOME!, "keep.txt"), "mine");
  fake.queue(
    toolCalls([
      { name: "bash", arguments: { command: "touch allowed.txt" } },
      { name: "bash", arguments: { command: "rm -rf ~" } },
      { name: "bash", arguments: { command: "touch outside.txt", unsandboxed: "needs the real home" } },
    ]),
    text("ok"),
  );
  const r = await runBinary(["exec", "--json", "make it, then clean up"], h.env, h.workspace);
  const all = events(r.stdout);
  // Only the unsandboxed request was put to a person (and, on a pipe, denied); the hook answered the first call.
  expect(byMethod(all, "approval.requested").map((p) => p.guard.reason)).toEqual(["it asks to run outside the sandbox: needs the real home"]);
  const done = byMethod(all, "tool.completed");
  expect(done[0].ok).toBe(true);
  expect(existsSync(join(h.workspace, "allowed.txt"))).toBe(true);
  expect(done[1].denied).toBe(true);
  expect(done[1].output).toContain("run it yourself");
  expect(existsSync(join(h.env.HOME!, "keep.txt"))).toBe(true);
  // A request to run outside the sandbox is a person's to answer: the hook's allow does not answer it.
  expect(done[2].denied).toBe(true);
  expect(existsSync(join(h.workspace, "outside.txt"))).toBe(false);
}, 30_000);

test("SessionStart and UserPromptSubmit context reach the request; a UserPromptSubmit exit 2 refuses the prompt", async () => {
  const h = withHooks(`[[hooks.SessionStart]]
command = "cat > $ROOT/start.json; echo 'session-context: the build uses make'"
[[hooks.UserPromptSubmit]]
command = '''cat > $ROOT/prompt.json; printf '%s' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"prompt-context: today is release day"}}' '''`);
  fake.queue(text("hello"));
  const r = await runBinary(["exec", "--json", "hello there"], h.env, h.workspace);
  expect(r.code).toBe(0);
  const body = lastRequest();
  expect(body).toContain("session-context: the build uses make");
  expect(body).toContain("prompt-context: today is release day");
  expect(JSON.parse(h.read("start.json"))).toMatchObject({ hook_event_name: "SessionStart", source: "startup" });
  expect(JSON.parse(h.read("prompt.json"))).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "hello there" });

  const refusing = withHooks(`[[hooks.UserPromptSubmit]]\ncommand = "echo 'no deploys on Friday' >&2; exit 2"`);
  const before = fake.requests.length;
  const refused = await runBinary(["exec", "deploy it"], refusing.env, refusing.workspace);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain("no deploys on Friday");
  expect(fake.requests.length).toBe(before); // the model never saw the prompt
}, 30_000);

test("a Stop hook sends the model back to work with its reason, and one that keeps blocking is cut off after 3 rounds", async () => {
  const once = withHooks(`[[hooks.Stop]]
command = '''cat >> $ROOT/stop.jsonl; echo >> $ROOT/stop.jsonl; if [ ! -e $ROOT/stopped ]; then touch $ROOT/stopped; echo 'run the tests before you stop' >&2; exit 2; fi'''`);
  fake.queue(text("done"), text("tests pass, done"));
  const before = fake.requests.length;
  const r = await runBinary(["exec", "fix it"], once.env, once.workspace);
  expect(r.code).toBe(0);
  expect(fake.requests.length - before).toBe(2);
  expect(lastRequest()).toContain("run the tests before you stop");
  expect(r.stdout).toContain("tests pass, done");
  const inputs = once.read("stop.jsonl").trim().split("\n").map((l) => JSON.parse(l));
  expect(inputs.map((i) => i.stop_hook_active)).toEqual([false, true]);
  expect(inputs[0]).toMatchObject({ hook_event_name: "Stop", last_assistant_message: "done" });

  const always = withHooks(`[[hooks.Stop]]\ncommand = "echo 'not yet' >&2; exit 2"`);
  fake.queue(text("a"), text("b"), text("c"), text("d"), text("never asked"));
  const start = fake.requests.length;
  const cut = await runBinary(["exec", "--json", "go"], always.env, always.workspace);
  expect(cut.code).toBe(0);
  expect(fake.requests.length - start).toBe(4); // the answer, then 3 rounds
  expect(byMethod(events(cut.stdout), "model.notice").map((n) => n.message).join("\n")).toContain("cut off after 3 rounds");
  fake.clear();
}, 30_000);

test("PostToolUse runs a formatter after an edit, and a hook's exit 2 sends its stderr to the model", async () => {
  // The docs' first example: strip trailing blanks from the file the call changed (a stand-in for prettier).
  const h = withHooks(`[[hooks.PostToolUse]]
matcher = "Edit|MultiEdit|Write"
command = '''f=$(sed -n 's/.*"file_path":"\\([^"]*\\)".*/\\1/p'); [ -n "$f" ] && sed -i 's/[[:space:]]*$//' "$f"'''
[[hooks.PostToolUse]]
matcher = "edit"
command = "cat > $ROOT/post.json; echo 'lint: 1 warning in notes.txt' >&2; exit 2"`);
  writeFileSync(join(h.workspace, "notes.txt"), "alpha\nbeta\n");
  fake.queue(toolCalls([{ name: "edit", arguments: { path: "notes.txt", edits: [{ old_text: "beta", new_text: "gamma   " }] } }]), text("edited"));
  const r = await runBinary(["exec", "--json", "--yes", "edit it"], h.env, h.workspace);
  expect(r.code).toBe(0);
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
  const done = byMethod(events(r.stdout), "tool.completed")[0];
  expect(done.ok).toBe(true);
  expect(done.hook).toMatchObject({ event: "PostToolUse", decision: "block", reason: "lint: 1 warning in notes.txt" });
  expect(lastRequest()).toContain("lint: 1 warning in notes.txt");
  const input = JSON.parse(h.read("post.json"));
  expect(input).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "edit", claude_tool_name: "Edit", tool_response: { ok: true } });
  expect(input.tool_input.file_path).toBe(join(realpathSync(h.workspace), "notes.txt"));
}, 30_000);

test("a hook that hangs is killed at its timeout, leaves no process, is reported once, and does not allow a call", async () => {
  const h = withHooks(`${ASKING}[[hooks.PreToolUse]]\ncommand = "sleep 7331 & sleep 7332"\ntimeout_seconds = 1`);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "ls" } }, { name: "bash", arguments: { command: "touch hung.txt" } }]), text("ok"));
  const r = await runBinary(["exec", "--json", "look"], h.env, h.workspace);
  const all = events(r.stdout);
  const done = byMethod(all, "tool.completed");
  expect(done[0].ok).toBe(true); // a read-only call goes on as if the hook were absent
  expect(done[1].denied).toBe(true); // a call that would ask is not allowed by a hook that timed out
  expect(existsSync(join(h.workspace, "hung.txt"))).toBe(false);
  const said = byMethod(all, "model.notice").filter((n) => n.message.includes("timed out"));
  expect(said).toHaveLength(1);
  expect(said[0].message).toContain("PreToolUse hook `sleep 7331 & sleep 7332` timed out after 1 s");
  expect(byMethod(all, "hook.completed").map((e) => e.hooks[0].timed_out)).toEqual([true, true]);
  expect(pidsWithArgv(["sleep", "7331"])).toEqual([]);
  expect(pidsWithArgv(["sleep", "7332"])).toEqual([]);
}, 30_000);

test("SessionEnd and BudgetReached fire with their input; a failing hook does not stop the turn", async () => {
  const h = withHooks(`[limits]\ndaily_tokens = 10\n[[hooks.SessionEnd]]\ncommand = "cat >> $ROOT/end.jsonl; echo >> $ROOT/end.jsonl"\n[[hooks.BudgetReached]]\ncommand = "cat > $ROOT/budget.json"\n[[hooks.UserPromptSubmit]]\ncommand = "exit 1"`);
  fake.queue(text("spent", { usage: { input_tokens: 50, output_tokens: 5 } }));
  const first = await runBinary(["exec", "--json", "spend"], h.env, h.workspace);
  expect(first.code).toBe(0);
  expect(byMethod(events(first.stdout), "model.notice").map((n) => n.message).join("\n")).toContain("UserPromptSubmit hook `exit 1` exited with status 1");
  expect(JSON.parse(h.read("end.jsonl").trim())).toMatchObject({ hook_event_name: "SessionEnd", reason: "other" });
  const before = fake.requests.length;
  const second = await runBinary(["exec", "spend more"], h.env, h.workspace);
  expect(second.code).not.toBe(0);
  expect(fake.requests.length).toBe(before);
  const budget = JSON.parse(h.read("budget.json"));
  expect(budget.hook_event_name).toBe("BudgetReached");
  expect(budget.message).toContain("limit");
}, 30_000);
