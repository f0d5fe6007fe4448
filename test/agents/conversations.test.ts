import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConversationStore, liveConversationIds, markerDir, pruneStaleMarkers } from "../../src/agents/conversations";
import { identityOf } from "../../src/process/procfs";

function store(opts: { max?: number; idle?: number } = {}) {
  const scvHome = mkdtempSync(join(tmpdir(), "scv-conv-"));
  let now = 1_000_000;
  const s = new ConversationStore({
    scvHome,
    sessionId: "s1",
    maxConversations: opts.max ?? 8,
    idleSeconds: opts.idle ?? 86400,
    now: () => now,
  });
  return { s, scvHome, tick: (ms: number) => (now += ms) };
}

describe("conversations", () => {
  test("handles are numbered per agent and never reused", () => {
    const { s } = store();
    const a = s.start("codex", "/w");
    const b = s.start("codex", "/w");
    const c = s.start("claude", "/w");
    expect([a.handle, b.handle, c.handle]).toEqual(["codex-1", "codex-2", "claude-1"]);
    s.endTurn(a); // never reported: forgotten
    expect(s.get("codex-1")).toBeUndefined();
    expect(s.start("codex", "/w").handle).toBe("codex-3");
  });

  test("one turn at a time", () => {
    const { s } = store();
    const c = s.start("codex", "/w");
    s.reported(c, "thread-1");
    expect(() => s.beginTurn(c)).toThrow("session busy");
    s.endTurn(c);
    s.beginTurn(c);
    expect(c.turns).toBe(2);
  });

  test("beyond max_conversations the least recently used idle one is forgotten", () => {
    const { s, tick } = store({ max: 2 });
    const a = s.start("codex", "/w");
    s.reported(a, "t-a");
    s.endTurn(a);
    tick(10);
    const b = s.start("codex", "/w");
    s.reported(b, "t-b");
    s.endTurn(b);
    tick(10);
    s.beginTurn(a);
    s.endTurn(a); // a is now the most recently used
    tick(10);
    const c = s.start("pi", "/w");
    expect(s.list().map((x) => x.handle).sort()).toEqual(["codex-1", "pi-1"]);
    expect(b.markerPath).toBeUndefined();
    expect(c.busy).toBe(true);
  });

  test("busy conversations are never cut off to make room", () => {
    const { s } = store({ max: 1 });
    const a = s.start("codex", "/w");
    const b = s.start("codex", "/w");
    expect(s.list()).toHaveLength(2);
    expect(a.busy && b.busy).toBe(true);
  });

  test("a conversation left unused for conversation_idle_seconds expires", () => {
    const { s, tick, scvHome } = store({ idle: 60 });
    const a = s.start("claude", "/w", "uuid-1");
    s.reported(a, "uuid-1");
    s.endTurn(a);
    expect(existsSync(join(markerDir(scvHome), "uuid-1.json"))).toBe(true);
    tick(59_000);
    expect(s.get("claude-1")).toBe(a);
    tick(2_000);
    expect(s.get("claude-1")).toBeUndefined();
    expect(existsSync(join(markerDir(scvHome), "uuid-1.json"))).toBe(false);
  });

  test("markers name the CLI session and their live owner; closing removes them", () => {
    const { s, scvHome } = store();
    const a = s.start("codex", "/w");
    s.reported(a, "0199-thread");
    expect(liveConversationIds(scvHome)).toEqual(new Set(["0199-thread"]));
    s.endTurn(a);
    s.closeAll();
    expect(readdirSync(markerDir(scvHome))).toEqual([]);
  });

  test("stale markers (owner gone or unreadable) are pruned; live ones stay", () => {
    const { s, scvHome } = store();
    const a = s.start("codex", "/w");
    s.reported(a, "live-thread");
    const dir = markerDir(scvHome);
    mkdirSync(dir, { recursive: true });
    const me = identityOf(process.pid)!;
    const dead = { cli_session_id: "dead", agent: "codex", handle: "codex-9", scv_session: "x", owner: { pid: me.pid, start_time: "1" }, created_unix: 1 };
    writeFileSync(join(dir, "dead.json"), JSON.stringify(dead));
    writeFileSync(join(dir, "junk.json"), "{not json");
    expect(liveConversationIds(scvHome)).toEqual(new Set(["live-thread"]));
    expect(pruneStaleMarkers(scvHome)).toBe(2);
    expect(readdirSync(dir)).toEqual(["live-thread.json"]);
  });
});
