import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConversationStore } from "../../src/agents/conversations";
import { agentsGc, formatGcReport, parseDuration } from "../../src/accounts/gc";

const DAY = 86400;
const NOW = Date.now();

function transcript(path: string, ageSeconds: number, body = "{}\n") {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, body);
  const t = (NOW - ageSeconds * 1000) / 1000;
  utimesSync(path, t, t);
}

function home() {
  const scvHome = mkdtempSync(join(tmpdir(), "scv-gc-"));
  const a = (agent: string, rel: string) => join(scvHome, "agents", agent, rel);
  return { scvHome, a };
}

describe("scv agents gc", () => {
  test("removes transcripts older than the cutoff from each agent's private home", () => {
    const { scvHome, a } = home();
    transcript(a("codex", "sessions/2026/01/01/rollout-x-0001.jsonl"), 40 * DAY);
    transcript(a("codex", "sessions/2026/12/01/rollout-y-0002.jsonl"), 2 * DAY);
    transcript(a("claude", ".claude/projects/-w/aaaa.jsonl"), 31 * DAY);
    transcript(a("pi", ".pi/agent/sessions/--w--/t_bbbb.jsonl"), 90 * DAY);
    transcript(a("claude", ".claude/settings.json"), 400 * DAY); // not a transcript
    const r = agentsGc({ scvHome, now: NOW });
    expect(r.agents.map((x) => [x.agent, x.files])).toEqual([
      ["claude", [".claude/projects/-w/aaaa.jsonl"]],
      ["codex", ["sessions/2026/01/01/rollout-x-0001.jsonl"]],
      ["grok", []],
      ["pi", [".pi/agent/sessions/--w--/t_bbbb.jsonl"]],
    ]);
    expect(existsSync(a("codex", "sessions/2026/01/01"))).toBe(false);
    expect(existsSync(a("codex", "sessions/2026/12/01/rollout-y-0002.jsonl"))).toBe(true);
    expect(existsSync(a("claude", ".claude/settings.json"))).toBe(true);
    expect(existsSync(a("codex", "sessions"))).toBe(true);
  });

  test("grok: a headless session's folder goes whole once every file in it is old; its index and history stay", () => {
    const { scvHome, a } = home();
    // The layout grok 1.0.41 wrote for two headless runs in one workspace (seen by running the real binary).
    const ws = ".grok/sessions/%2Fwork%2Fproj";
    const old = `${ws}/01a23b4c-fc00-7f00-af99-6654a198f3e5`;
    const mixed = `${ws}/02b34c5d-fc00-7f00-af99-6654a198f3e6`;
    for (const f of ["updates.jsonl", "chat_history.jsonl", "events.jsonl", "summary.json"]) transcript(a("grok", `${old}/${f}`), 40 * DAY);
    transcript(a("grok", `${mixed}/chat_history.jsonl`), 40 * DAY);
    transcript(a("grok", `${mixed}/updates.jsonl`), 2 * DAY);
    transcript(a("grok", `${ws}/prompt_history.jsonl`), 90 * DAY);
    transcript(a("grok", ".grok/sessions/session_search.sqlite"), 90 * DAY);
    const dry = agentsGc({ scvHome, now: NOW, agent: "grok", dryRun: true });
    expect(dry.agents[0]!.files.sort()).toEqual(["chat_history.jsonl", "events.jsonl", "summary.json", "updates.jsonl"].map((f) => `${old}/${f}`));
    expect(existsSync(a("grok", old))).toBe(true);
    agentsGc({ scvHome, now: NOW, agent: "grok" });
    expect(existsSync(a("grok", old))).toBe(false);
    expect(existsSync(a("grok", `${mixed}/chat_history.jsonl`))).toBe(true);
    expect(existsSync(a("grok", `${ws}/prompt_history.jsonl`))).toBe(true);
    expect(existsSync(a("grok", ".grok/sessions/session_search.sqlite"))).toBe(true);
  });

  test("--dry-run removes nothing and reports per agent", () => {
    const { scvHome, a } = home();
    transcript(a("codex", "sessions/old.jsonl"), 40 * DAY, "x".repeat(2048));
    const r = agentsGc({ scvHome, dryRun: true, agent: "codex", now: NOW });
    expect(r.agents).toHaveLength(1);
    expect(existsSync(a("codex", "sessions/old.jsonl"))).toBe(true);
    expect(formatGcReport(r)).toBe("codex: would remove 1 transcript file, 2.0 KiB\n  codex: sessions/old.jsonl");
  });

  test("--older-than, never under an hour, and transcripts under an hour old always stay", () => {
    const { scvHome, a } = home();
    transcript(a("codex", "sessions/a.jsonl"), 2 * 3600);
    transcript(a("codex", "sessions/b.jsonl"), 30 * 60);
    expect(() => agentsGc({ scvHome, olderThan: "30m", now: NOW })).toThrow("under an hour");
    expect(() => agentsGc({ scvHome, olderThan: "soon", now: NOW })).toThrow("such as 7d or 12h");
    expect(() => agentsGc({ scvHome, agent: "dsh", now: NOW })).toThrow("choose one of: claude, codex, grok, pi");
    const r = agentsGc({ scvHome, olderThan: "1h", now: NOW });
    expect(r.agents.find((x) => x.agent === "codex")!.files).toEqual(["sessions/a.jsonl"]);
    expect(existsSync(a("codex", "sessions/b.jsonl"))).toBe(true);
    expect(parseDuration("7d")).toBe(7 * DAY);
    expect(parseDuration("2w")).toBe(14 * DAY);
  });

  test("keeps what a live conversation's marker names", () => {
    const { scvHome, a } = home();
    const id = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
    transcript(a("codex", `sessions/2026/01/01/rollout-2026-01-01T00-00-00-${id}.jsonl`), 60 * DAY);
    const s = new ConversationStore({ scvHome, sessionId: "s", maxConversations: 8, idleSeconds: 86400 });
    const c = s.start("codex", "/w");
    s.reported(c, id);
    const r = agentsGc({ scvHome, now: NOW });
    expect(r.agents.find((x) => x.agent === "codex")).toMatchObject({ files: [], keptLive: 1 });
    s.closeAll();
    expect(agentsGc({ scvHome, now: NOW }).agents.find((x) => x.agent === "codex")!.files).toHaveLength(1);
  });

  test("never follows symlinks", () => {
    const { scvHome, a } = home();
    const outside = mkdtempSync(join(tmpdir(), "scv-gc-outside-"));
    transcript(join(outside, "precious.jsonl"), 400 * DAY);
    mkdirSync(a("codex", "sessions"), { recursive: true });
    symlinkSync(outside, a("codex", "sessions/link"));
    symlinkSync(join(outside, "precious.jsonl"), a("codex", "sessions/file-link.jsonl"));
    mkdirSync(a("pi", ".pi/agent"), { recursive: true });
    symlinkSync(outside, a("pi", ".pi/agent/sessions"));
    agentsGc({ scvHome, now: NOW });
    expect(existsSync(join(outside, "precious.jsonl"))).toBe(true);
  });
});
