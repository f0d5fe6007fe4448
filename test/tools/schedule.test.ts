// The schedule tool: offered only in the owner's sessions, its risks and approval summary, the next fire in
// words, and the plain warning when no daemon will run what it made.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScheduleStore } from "../../src/schedules/store";
import { createScheduleTool } from "../../src/tools/schedule";
import { invokeTool, makeCallContext, makeScope } from "../fake/scope";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function scope(opts: { depth?: number; chat?: "owner" | "other" } = {}) {
  const root = mkdtempSync(join(tmpdir(), "scv-schedtool-"));
  roots.push(root);
  const s = makeScope({ env: { SCV_HOME: join(root, "home"), HOME: root }, delegationDepth: opts.depth ?? 0, config: { schedules: { time_zone: "America/New_York" } } });
  if (opts.chat) s.channel = { kind: "dir", account: "default", conversation: "owner-1", ...(opts.chat === "owner" ? { log: join(root, "log"), owner: true } : {}) };
  // As the server decides it (server.ts isOwnerSession): the top of a delegation chain, and the owner's chat only.
  s.owner = (opts.depth ?? 0) === 0 && opts.chat !== "other";
  return s;
}

test("offered to the terminal and the chat owner; not to other chat users or a delegated SCV", () => {
  expect(createScheduleTool(scope())?.name).toBe("schedule");
  expect(createScheduleTool(scope({ chat: "owner" }))?.name).toBe("schedule");
  expect(createScheduleTool(scope({ chat: "other" }))).toBeUndefined();
  expect(createScheduleTool(scope({ depth: 1 }))).toBeUndefined();
});

test("create is process risk, shows what it makes, answers with the next fire in words and warns when no daemon runs", async () => {
  const s = scope();
  const tool = createScheduleTool(s)!;
  const ctx = makeCallContext(s);
  const r = await invokeTool(tool, { action: "create", cron: "30 8 * * 1-5", prompt: "send me the build status" }, ctx);
  expect(r.risk).toBe("process");
  expect(r.summary).toBe('create a schedule cron "30 8 * * 1-5", read-only tools: send me the build status');
  expect(r.result.ok).toBe(true);
  expect(r.result.output).toMatch(/^Created sch-[0-9a-f]{8}: cron 30 8 \* \* 1-5 \(America\/New_York\)\. Next fire: (Monday|Tuesday|Wednesday|Thursday|Friday), \d+ \w+ \d{4} at 08:30 \(America\/New_York\), in \d+ (hours|minutes|days)\./);
  expect(r.result.output).toContain("Warning: The daemon is not running and not installed, so nothing fires until it runs: start it with `scv daemon start`");
  const [made] = new ScheduleStore(s.scvHome).list().schedules;
  expect(made).toMatchObject({ owner: { kind: "terminal", cwd: s.workspace }, tools: false, trigger: { kind: "cron", tz: "America/New_York" } });
  const list = await invokeTool(tool, { action: "list" }, ctx);
  expect(list.risk).toBe("read_only");
  expect(list.result.output).toContain(`${made!.id}: cron 30 8 * * 1-5 (America/New_York), “send me the build status”; next `);
  const paused = await invokeTool(tool, { action: "pause", id: made!.id }, ctx);
  expect(paused.risk).toBe("process");
  expect(paused.result.output).toStartWith(`Paused ${made!.id}; it will not fire until resumed.`);
  const cancelled = await invokeTool(tool, { action: "cancel", id: made!.id }, ctx);
  expect(cancelled.result.output).toStartWith(`Cancelled ${made!.id}`);
  expect(new ScheduleStore(s.scvHome).list().schedules).toEqual([]);
});

test("bad input names the field; a chat schedule takes the conversation's approvals", async () => {
  const s = scope({ chat: "owner" });
  const tool = createScheduleTool(s)!;
  const ctx = makeCallContext(s);
  const out = async (args: object) => (await invokeTool(tool, args, ctx)).result.output;
  expect(await out({ action: "create", every: "1m", prompt: "x" })).toContain("every: 1m is more often than the floor of 5 minutes");
  expect(await out({ action: "create", cron: "* * *", prompt: "x" })).toContain("cron: ");
  expect(await out({ action: "create", at: "10:00", tz: "Atlantis/Capital", prompt: "x" })).toContain('tz: "Atlantis/Capital" is not a time zone');
  expect(await out({ action: "create", every: "1h", prompt: "x", tools: true })).toContain("tools: a chat schedule runs with this conversation's approvals");
  expect(await out({ action: "pause", id: "sch-00000000" })).toContain("no schedule sch-00000000");
  const made = await invokeTool(tool, { action: "create", every: "1h", prompt: "check mail" }, ctx);
  expect(made.summary).toBe("create a schedule every 1h: check mail");
  expect(new ScheduleStore(s.scvHome).list().schedules[0]).toMatchObject({ owner: { kind: "chat", channel: "dir/default", conversation: "owner-1" }, tools: true });
});

test('the model may say "in 20 minutes": the fire is that long from now', async () => {
  const s = scope();
  const tool = createScheduleTool(s)!;
  const before = Date.now();
  const r = await invokeTool(tool, { action: "create", at: "in 20 minutes", prompt: "stretch" }, makeCallContext(s));
  expect(r.result.ok).toBe(true);
  expect(r.result.output).toMatch(/Next fire: .*, in 20 minutes\./);
  const [made] = new ScheduleStore(s.scvHome).list().schedules;
  const at = Date.parse((made!.trigger as { at: string }).at);
  expect(at - before).toBeGreaterThanOrEqual(20 * 60_000);
  expect(at - before).toBeLessThan(20 * 60_000 + 5_000);
});
