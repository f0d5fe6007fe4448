import { describe, expect, test } from "bun:test";
import { createStyle as createTheme } from "../../src/terminal/style";
import { stripAnsi } from "../../src/tui/text";
import { ConversationView } from "../../src/tui/view";

const ids = { session_id: "s-1", turn_id: "t1" };
const user = { kind: "user" } as const;
const usage = { input_tokens: 120, output_tokens: 30, cached_input_tokens: 0, reasoning_tokens: 0 };

function makeView(width = 60) {
  let now = 1_000;
  const view = new ConversationView(createTheme(false), () => width, () => now);
  return { view, tick: (ms: number) => (now += ms) };
}

describe("ConversationView", () => {
  test("a streamed reply is committed line by line; the unfinished line stays live", () => {
    const { view } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "hello" });
    expect(view.takeCommitted()).toEqual(["", "› hello", ""]);
    view.apply("assistant.delta", { ...ids, text: "First **line**\nsec" });
    expect(view.takeCommitted()).toEqual(["First line"]);
    expect(view.live(0)).toEqual(["sec"]);
    view.apply("assistant.delta", { ...ids, text: "ond\n" });
    expect(view.takeCommitted()).toEqual(["second"]);
    view.apply("turn.ended", { ...ids, origin: user, status: "completed", reply: "First **line**\nsecond\n", usage });
    expect(view.takeCommitted()).toEqual([]);
    expect(view.turnRunning).toBe(false);
    expect(view.lastUsage?.input_tokens).toBe(120);
  });

  test("text the stream did not carry (a Sources list) is added at the end", () => {
    const { view } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "q" });
    view.takeCommitted();
    view.apply("assistant.delta", { ...ids, text: "Answer." });
    view.apply("turn.ended", { ...ids, origin: user, status: "completed", reply: "Answer.\n\nSources:\n- https://a.example", usage });
    expect(view.takeCommitted()).toEqual(["Answer.", "Sources:", "• https://a.example"]);
  });

  test("a tool runs live with its progress, then leaves one result line and a summary", () => {
    const { view, tick } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "go" });
    view.takeCommitted();
    view.apply("tool.started", { ...ids, call_id: "c1", tool: "bash", label: "$ cargo test", risk: "process" });
    tick(2_500);
    view.apply("tool.progress", { ...ids, call_id: "c1", line: "running 12 tests" });
    expect(view.live(0)).toEqual(["⠋ $ cargo test 2s", "  running 12 tests"]);
    view.apply("tool.completed", { ...ids, call_id: "c1", tool: "bash", ok: true, output: "exit 0\nok\nok" });
    view.apply("tool.started", { ...ids, call_id: "c2", tool: "bash", label: "$ make" });
    view.apply("tool.completed", { ...ids, call_id: "c2", tool: "bash", ok: false, output: "exit 2\nno rule", display: "exit 2, 0.3 s" });
    const lines = view.takeCommitted();
    expect(lines[0]).toBe("✓ $ cargo test (2s)");
    expect(lines.slice(1, 4)).toEqual(["  └ exit 0", "    ok", "    ok"]);
    // `exit 2` is on the call's line already (its display): the preview starts at the output.
    expect(lines.slice(4)).toEqual(["✗ $ make failed (exit 2, 0.3 s)", "  └ no rule"]);
    expect(view.live(0).join("\n")).toContain("working…");
  });

  test("a denied call says denied, not failed", () => {
    const { view } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "go" });
    view.apply("tool.started", { ...ids, call_id: "c1", tool: "bash", label: "$ rm -rf build" });
    view.apply("tool.completed", { ...ids, call_id: "c1", tool: "bash", ok: false, output: "not run: denied by the user" });
    const text = view.takeCommitted().join("\n");
    expect(text).toContain("⊘ $ rm -rf build denied");
    expect(text).not.toContain("failed");
  });

  test("a call a hook refused says which hook and why", () => {
    const { view } = makeView(120);
    view.apply("turn.started", { ...ids, origin: user, prompt: "go" });
    view.apply("tool.started", { ...ids, call_id: "c1", tool: "write", label: "write dist/app.js" });
    const hook = { event: "PreToolUse", command: "./no-dist.sh", decision: "deny" as const, reason: "dist/ is generated\nsecond line" };
    view.apply("tool.completed", { ...ids, call_id: "c1", tool: "write", ok: false, output: "not run: PreToolUse hook", denied: true, hook });
    expect(view.takeCommitted().join("\n")).toContain("⊘ write dist/app.js denied by PreToolUse hook: dist/ is generated");
  });

  test("the approval card shows the risk in words and colours a diff; identity is the server's fingerprint", () => {
    const { view } = makeView();
    const theme = createTheme(true);
    const colored = new ConversationView(theme, () => 60);
    for (const v of [view, colored]) {
      v.apply("turn.started", { ...ids, origin: user, prompt: "edit" });
      v.apply("tool.started", { ...ids, call_id: "c1", tool: "write", label: "write a.txt", arguments: { path: "a.txt" } });
      v.apply("approval.requested", { ...ids, approval_id: "a-1", call_id: "c1", tool: "write", risk: "filesystem", summary: "write a.txt\n-old\n+new", workspace: "/w", fingerprint: "f00d" });
    }
    const card = view.live(0);
    expect(card[0]).toBe("╭─ Allow write? filesystem: changes files in the workspace");
    expect(card).toContain("│ -old");
    expect(card).toContain("│ +new");
    expect(card.at(-1)).toStartWith("╰─ ");
    // The answers wrap between phrases only (issue 56): joined again with the separator they lost.
    const choices = card.slice(4).map((l) => l.replace(/^(│ |╰─) /, "").trim()).join(" · ");
    expect(choices).toBe("y approve once · a identical calls this session · t don't ask again for write this session · n deny and say why · Esc deny");
    expect(view.live(0).some((l) => l.includes("⠋ write a.txt"))).toBe(false); // the card stands for the call
    expect(view.approval?.identity).toBe("f00d");
    const coloredCard = colored.live(0);
    expect(coloredCard.some((l) => l.includes("\x1b[32m+new"))).toBe(true);
    expect(coloredCard.some((l) => l.includes("\x1b[31m-old"))).toBe(true);
    view.clearApproval("denied", "use the helper");
    expect(view.approval).toBeUndefined();
    view.apply("tool.completed", { ...ids, call_id: "c1", tool: "write", ok: false, denied: true, output: "not run: denied", display: "denied: use the helper" });
    // One line for the call: the denial and its result fold together, then what the model was told.
    const after = view.takeCommitted().join("\n");
    expect(after.split("\n").filter((l) => l.includes("write a.txt"))).toEqual(["⊘ write a.txt denied: use the helper"]);
  });

  test("background reports are marked, and jobs are tracked until reported", () => {
    const { view } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "start a job" });
    view.apply("tool.started", { ...ids, call_id: "c1", tool: "agent", label: "agent codex" });
    view.apply("tool.completed", { ...ids, call_id: "c1", tool: "agent", ok: true, output: '{"job":"codex-1"}', jobs: ["codex-1"] });
    view.apply("turn.ended", { ...ids, origin: user, status: "completed", reply: "started", usage });
    expect([...view.jobs.keys()]).toEqual(["codex-1"]);
    view.apply("job.progress", { session_id: "s-1", job: "codex-1", agent: "codex", line: "$ cargo test" });
    view.apply("job.progress", { session_id: "s-1", job: "other-9", agent: "codex", line: "not ours" });
    expect([...view.jobs]).toEqual([["codex-1", "$ cargo test"]]);
    view.takeCommitted();
    view.apply("approval.denied_unattended", { session_id: "s-1", job: "codex-1", tool: "agent", risk: "filesystem", summary: "[codex-1 acp] Write b.ts (edit)\n+3 lines", reason: "nobody can approve in a background job" });
    expect(view.takeCommitted().join(" ")).toBe("⊘ denied without asking (codex-1): [codex-1 acp] Write b.ts (edit) — nobody can approve in a background job");
    view.takeCommitted();
    const bg = { kind: "background" as const, jobs: ["codex-1"] };
    view.apply("turn.started", { session_id: "s-1", turn_id: "t2", origin: bg, prompt: "[SCV background report]" });
    expect(view.takeCommitted()).toContain("◆ background report: codex-1");
    view.apply("turn.ended", { session_id: "s-1", turn_id: "t2", origin: bg, status: "completed", reply: "codex finished", usage });
    expect(view.takeCommitted()).toContain("codex finished");
    expect(view.jobs.size).toBe(0);
  });

  test("failures and cancellations are shown; control characters from the model never reach the terminal", () => {
    const { view } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "x" });
    view.apply("assistant.delta", { ...ids, text: "evil \x1b]0;title\x07text\x1b[2J\n" });
    view.apply("turn.ended", { ...ids, origin: user, status: "failed", reply: "", usage, error: { class: "rate_limit", message: "slow down" } });
    const text = view.takeCommitted().join("\n");
    expect(text).toContain("evil text");
    expect(text).not.toContain("\x1b");
    view.apply("assistant.delta", { ...ids, text: "8-bit \x9b2J\x9d0;T\x9c and \u202ebidi\n" });
    const c1 = view.takeCommitted().join("\n");
    expect(c1).not.toMatch(/[\x80-\x9f\u202e]/);
    expect(c1).toContain("\\u202ebidi");
    expect(text).toContain("✗ turn failed: slow down");
    view.apply("turn.started", { session_id: "s-1", turn_id: "t2", origin: user, prompt: "y" });
    view.apply("turn.ended", { session_id: "s-1", turn_id: "t2", origin: user, status: "cancelled", reply: "", usage });
    expect(view.takeCommitted()).toContain("⊘ cancelled");
  });

  test("reasoning summaries are dimmed, folded to three lines, and kept out of the reply", () => {
    const { view } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "think" });
    view.takeCommitted();
    view.apply("reasoning.delta", { ...ids, text: "a\nb\nc\nd\ne" });
    expect(view.live(0)[0]).toBe("thinking: e");
    view.apply("assistant.delta", { ...ids, text: "answer\n" });
    expect(view.takeCommitted()).toEqual(["  a", "  b", "  c", "  … 2 more lines of reasoning", "answer"]);
  });

  test("retries show as a passing notice; notices and compactions as lines", () => {
    const { view } = makeView(100);
    view.apply("turn.started", { ...ids, origin: user, prompt: "x" });
    view.takeCommitted();
    view.apply("model.retrying", { ...ids, attempt: 1, max_retries: 3, delay_ms: 2100, error: { class: "rate_limit", message: "slow", status: 429 } });
    expect(view.live(0)).toContain("retrying in 2.1 s after HTTP 429 (1/3)");
    view.apply("assistant.delta", { ...ids, text: "ok" });
    expect(view.live(0).join("\n")).not.toContain("retrying");
    view.apply("model.notice", { ...ids, message: "the endpoint rejected include; continuing without it" });
    view.apply("session.compacted", { session_id: "s-1", reason: "threshold", turns: 12, items: 40, tokens_before: 90000, tokens_after: 9000 });
    expect(view.takeCommitted()).toEqual(["note: the endpoint rejected include; continuing without it", "compacted 12 earlier turns into a summary (about 90000 → 9000 tokens)"]);
  });

  test("Ctrl-O shows the last result in full", () => {
    const { view } = makeView();
    view.apply("turn.started", { ...ids, origin: user, prompt: "x" });
    view.apply("tool.started", { ...ids, call_id: "c1", tool: "read", label: "read a.txt" });
    view.apply("tool.completed", { ...ids, call_id: "c1", tool: "read", ok: true, output: "l1\nl2\nl3" });
    view.takeCommitted();
    expect(view.expandLastResult()).toBe(true);
    expect(view.takeCommitted().map(stripAnsi)).toEqual(["── read a.txt ──", "l1", "l2", "l3", "──"]);
  });

  test("an MCP connect card says 'always for this workspace', and one for several servers lists each with a toggle", () => {
    const { view } = makeView(100);
    view.apply("turn.started", { ...ids, origin: user, prompt: "hi" });
    view.apply("approval.requested", { ...ids, approval_id: "a-1", call_id: "mcp-connect", tool: "mcp.connect", risk: "process", summary: "connect to 2 MCP servers:", workspace: "/w", rememberable: true, choices: ["alpha", "beta"] });
    let card = view.live(0).join("\n");
    expect(card).toContain("│ 1 ☑ alpha");
    expect(card).toContain("│ 2 ☑ beta");
    expect(card).toContain("y approve the ticked (1-2 toggle) · a always for this workspace · n deny and say why");
    expect(card).not.toContain("identical calls");
    view.approval!.leftOut!.add("beta");
    card = view.live(0).join("\n");
    expect(card).toContain("│ 2 ☐ beta");
  });

  test("narrow terminals: every live line fits the width", () => {
    const { view } = makeView(20);
    view.apply("turn.started", { ...ids, origin: user, prompt: "a long prompt that must wrap in a narrow terminal" });
    for (const l of view.takeCommitted()) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(20);
    view.apply("tool.started", { ...ids, call_id: "c1", tool: "bash", label: "$ a very long command line indeed" });
    view.apply("approval.requested", { ...ids, approval_id: "a", call_id: "c1", tool: "bash", risk: "process", summary: "$ a very long command line indeed", workspace: "/w" });
    for (const l of view.live(0)) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(20);
  });
});
