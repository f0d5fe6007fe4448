// The hooks contract in process, with real /bin/sh hooks through the process runner: matchers as Claude Code reads
// them, exit codes and JSON answers, how the answers of parallel hooks combine, a failure reported once, output
// scrubbed and bounded, Claude Code settings read for import.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HookEntry, type HooksConfig } from "../../src/config/schema";
import { hooksToml, importClaudeHooks } from "../../src/hooks/claude-import";
import { claudeToolNames, createHooks, matches } from "../../src/hooks/index";

test("matchers select SCV's and Claude Code's tool names alike", () => {
  const edit = ["edit", ...claudeToolNames("edit")];
  expect(matches("Edit|Write", edit)).toBe(true);
  expect(matches("MultiEdit", edit)).toBe(true);
  expect(matches("edit", edit)).toBe(true);
  expect(matches("Bash", edit)).toBe(false);
  expect(matches("Edi", edit)).toBe(false); // a plain name is exact
  expect(matches(undefined, edit) && matches("", edit) && matches("*", edit)).toBe(true);
  const mcp = ["github__create_issue", ...claudeToolNames("github__create_issue")];
  expect(mcp).toContain("mcp__github__create_issue");
  expect(matches("mcp__github__.*", mcp)).toBe(true);
  expect(matches("mcp__gitlab__.*", mcp)).toBe(false);
  expect(claudeToolNames("plan")).toEqual([]);
}, 30_000);

const hooksOf = (events: Record<string, { command: string; matcher?: string; timeout_seconds?: number }[]>): HooksConfig =>
  Object.fromEntries(Object.entries(events).map(([e, list]) => [e, list.map((h) => HookEntry.parse(h))]));

function context(hooks: HooksConfig, reports: string[] = []) {
  const cwd = mkdtempSync(join(tmpdir(), "scv-hooks-"));
  return { cwd, hooks: createHooks({ hooks, cwd, sessionId: "s-test", env: { PATH: process.env.PATH! }, secrets: ["sk-verysecret-0123456789"], report: (m) => reports.push(m) }), done: () => rmSync(cwd, { recursive: true, force: true }) };
}

test("exit codes and JSON answers combine: a block wins, then deny > ask > allow; contexts join in order", async () => {
  const allow = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`;
  const ask = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"look first"}}'`;
  const c = context(hooksOf({ PreToolUse: [{ command: allow }, { command: ask, matcher: "Bash" }], PostToolUse: [{ command: "echo 'first' >&2; exit 2" }, { command: allow }] }));
  try {
    const both = await c.hooks.run("PreToolUse", {}, { subject: ["bash", "Bash"] });
    expect(both.permission).toEqual({ decision: "ask", command: ask, reason: "look first" });
    const one = await c.hooks.run("PreToolUse", {}, { subject: ["read", "Read"] });
    expect(one.permission?.decision).toBe("allow");
    const post = await c.hooks.run("PostToolUse", {});
    expect(post.block?.reason).toBe("first");
    expect(post.permission).toBeUndefined();
  } finally {
    c.done();
  }
}, 30_000);

test("hooks of one event run in parallel", async () => {
  // A barrier: each hook marks itself started and waits for all three; run one after another, the first would
  // wait out its timeout and count as an error.
  const wait = (n: string) => ({ command: `mkdir -p barrier; touch barrier/${n}; while [ "$(ls barrier | wc -l)" -lt 3 ]; do sleep 0.02; done`, timeout_seconds: 20 });
  const c = context(hooksOf({ Stop: [wait("a"), wait("b"), wait("c")] }));
  try {
    const d = await c.hooks.run("Stop", {});
    expect(d.runs.map((r) => r.verdict)).toEqual(["ok", "ok", "ok"]);
  } finally {
    c.done();
  }
}, 30_000);

test("broken JSON, too much output and a failing exit count as absent and are reported once; output is scrubbed", async () => {
  const reports: string[] = [];
  const c = context(
    hooksOf({
      UserPromptSubmit: [{ command: "echo '{not json'" }, { command: "head -c 200000 /dev/zero | tr '\\0' x" }, { command: "echo 'key sk-verysecret-0123456789 leaked' >&2; exit 3" }, { command: "echo 'context with sk-verysecret-0123456789'" }],
    }),
    reports,
  );
  try {
    const first = await c.hooks.run("UserPromptSubmit", { prompt: "p" });
    expect(first.block).toBeUndefined();
    expect(first.runs.map((r) => r.verdict)).toEqual(["error", "error", "error", "ok"]);
    expect(first.context).toBe("context with ***");
    await c.hooks.run("UserPromptSubmit", { prompt: "p" });
    expect(reports).toHaveLength(3); // said once each, not on every run
    expect(reports.join("\n")).toContain("does not parse");
    expect(reports.join("\n")).toContain("printed more than a hook may");
    expect(reports.join("\n")).toContain("exited with status 3: key *** leaked");
    expect(reports.join("\n")).not.toContain("sk-verysecret");
  } finally {
    c.done();
  }
}, 30_000);

test("a Claude Code settings block becomes [[hooks.*]] tables; what SCV cannot run is skipped with why", () => {
  const settings = JSON.stringify({
    hooks: {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: 'echo "a \\"quoted\\" word"', timeout: 5 }] }],
      PermissionRequest: [{ hooks: [{ type: "command", command: "true" }] }],
      Stop: [{ hooks: [{ type: "http", url: "http://127.0.0.1:1/" }] }],
    },
  });
  const existing = hooksOf({ PreToolUse: [] });
  const found = importClaudeHooks(settings, "settings.json", existing);
  expect(found.add).toEqual([{ event: "PreToolUse", matcher: "Bash", command: 'echo "a \\"quoted\\" word"', timeout_seconds: 5 }]);
  expect(found.skipped).toHaveLength(2);
  const toml = hooksToml(found.add, "settings.json");
  const parsed = Bun.TOML.parse(toml) as { hooks: HooksConfig };
  expect(parsed.hooks.PreToolUse![0]).toMatchObject({ matcher: "Bash", command: 'echo "a \\"quoted\\" word"', timeout_seconds: 5 });
  expect(() => importClaudeHooks("{", "settings.json", existing)).toThrow("is not valid JSON");
}, 30_000);
