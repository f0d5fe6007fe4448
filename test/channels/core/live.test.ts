import { expect, test } from "bun:test";
import { type LiveEvent, LiveHub } from "../../../src/channels/core/live";

const inTurn = { session_id: "s-1", turn_id: "t-1" };

test("the live hub keeps each session's running turn with its text and tool calls, and forgets it when it ends", () => {
  const hub = new LiveHub();
  const seen: LiveEvent[] = [];
  hub.subscribe((e) => seen.push(e));
  hub.opened("s-1", "web chat", "web");
  hub.notify("turn.started", { ...inTurn, origin: { kind: "user" }, prompt: "hi" } as never);
  hub.notify("assistant.delta", { ...inTurn, text: "hel" });
  hub.notify("assistant.delta", { ...inTurn, text: "lo" });
  hub.notify("tool.started", { ...inTurn, call_id: "c1", tool: "read", label: "read a.txt" } as never);
  hub.notify("tool.completed", { ...inTurn, call_id: "c1", tool: "read", ok: true, output: "x", display: "3 lines" } as never);
  const turn = hub.snapshot().sessions[0]!.turn!;
  expect(turn.text).toBe("hello");
  expect(turn.tools).toEqual([{ call_id: "c1", label: "read a.txt", ok: true, display: "3 lines" }]);
  hub.notify("turn.ended", { ...inTurn, status: "completed", reply: "hello", usage: {} as never, origin: { kind: "user" } } as never);
  expect(hub.snapshot().sessions[0]!.turn).toBeUndefined();
  expect(hub.snapshot().sessions[0]!.last?.status).toBe("completed");
  hub.notify("assistant.delta", { session_id: "s-unknown", turn_id: "t", text: "ignored" });
  expect(seen.filter((e) => e.type === "notification").length).toBe(6);
  hub.closed("s-1");
  expect(hub.snapshot().sessions).toEqual([]);
});

test("an approval waits until answered once; its turn ending drops it", async () => {
  const hub = new LiveHub();
  hub.opened("s-1", "web chat", "web");
  const answers: unknown[] = [];
  const request = { ...inTurn, approval_id: "a1", call_id: "c1", tool: "write", risk: "filesystem", summary: "write x", workspace: "/w" } as never;
  hub.ask(request, async (a) => void answers.push(a));
  expect(hub.snapshot().approvals.map((a) => [a.id, a.channel])).toEqual([["a1", "web"]]);
  expect(await hub.answer("a1", { approved: false, reason: "no" })).toBe(true);
  expect(await hub.answer("a1", { approved: true })).toBe(false);
  expect(answers).toEqual([{ approved: false, reason: "no" }]);
  hub.ask({ ...(request as object), approval_id: "a2" } as never, async () => {});
  hub.notify("turn.ended", { ...inTurn, status: "cancelled", reply: "", usage: {} as never, origin: { kind: "user" } } as never);
  expect(hub.snapshot().approvals).toEqual([]);
});

test("an answer the session refuses reaches whoever answered (the web page says it), and the approval is settled", async () => {
  const hub = new LiveHub();
  hub.opened("s-1", "web chat", "web");
  const seen: LiveEvent[] = [];
  hub.subscribe((e) => seen.push(e));
  const request = { ...inTurn, approval_id: "a1", call_id: "c1", tool: "write", risk: "filesystem", summary: "write x", workspace: "/w" } as never;
  hub.ask(request, async () => {
    throw new Error("no pending approval a1");
  });
  await expect(hub.answer("a1", { approved: true })).rejects.toThrow("the answer was not taken: no pending approval a1");
  expect(seen.some((e) => e.type === "approval.settled" && e.id === "a1")).toBe(true);
  expect(hub.snapshot().approvals).toEqual([]);
});
