// /goal and /stop in the interactive session, and how the conversation shows a goal's events.
import { expect, test } from "bun:test";
import { createStyle } from "../../src/terminal/style";
import { runSlashCommand, type SlashContext } from "../../src/tui/run-command";
import { ConversationView } from "../../src/tui/view";

function context() {
  const calls: { method: string; params: any }[] = [];
  const view = new ConversationView(createStyle(false), () => 200);
  const ctx = {
    view,
    theme: createStyle(false),
    session: () => ({ id: "s-1", model: "fake-model", tools: ["bash"] }),
    request: async (method: string, params: unknown) => {
      calls.push({ method, params });
      return { turn_id: "t1", queued: false, cancelled: true } as any;
    },
    requestRender: () => {},
  } as unknown as SlashContext;
  return { ctx, calls, view };
}

test("/goal CHECK starts a turn with the goal; /goal alone says how; /stop cancels", async () => {
  const { ctx, calls, view } = context();
  await runSlashCommand(ctx, "goal", "bun test");
  expect(calls).toEqual([{ method: "turn.start", params: { session_id: "s-1", prompt: "Work on the task until the check `bun test` passes.", goal: { check: "bun test" } } }]);
  await runSlashCommand(ctx, "goal", "");
  expect(view.takeCommitted().join("\n")).toContain("/goal takes the check to run after each turn");
  await runSlashCommand(ctx, "stop", "");
  expect(calls.at(-1)).toEqual({ method: "turn.cancel", params: { session_id: "s-1" } });
});

test("a goal's start, progress and end are lines in the conversation, the stop with the check's last output", () => {
  const { view } = context();
  const ids = { session_id: "s-1", turn_id: "t1" };
  view.apply("goal.started", { ...ids, check: "bun test", budget: { max_attempts: 10, max_tokens: 2_000_000, max_seconds: 1800, check_timeout_seconds: 600, repeat_limit: 3 } });
  view.apply("goal.progress", { ...ids, attempt: 1, max_attempts: 10, passed: false, exit_code: 1, last_line: "2 tests failed", tokens: 100, seconds: 3 });
  view.apply("goal.ended", { session_id: "s-1", status: "budget", reason: "all 10 attempts were used; the check still fails", check: "bun test", attempts: 10, exit_code: 1, output: "exit 1\nFAIL a.test.ts\n2 tests failed" });
  const said = view.takeCommitted().join("\n");
  expect(said).toContain("goal: until `bun test` passes (at most 10 attempts");
  expect(said).toContain("goal: attempt 1 of 10: the check failed (exit 1): 2 tests failed");
  expect(said).toContain("goal stopped (budget) after 10 attempts: all 10 attempts were used; the check still fails");
  expect(said).toContain("2 tests failed");
});
