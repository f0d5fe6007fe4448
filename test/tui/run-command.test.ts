import { expect, test } from "bun:test";
import { createStyle } from "../../src/terminal/style";
import { runSlashCommand, type SlashContext } from "../../src/tui/run-command";
import { ConversationView } from "../../src/tui/view";

function context(overrides: Partial<SlashContext> = {}) {
  const calls: string[] = [];
  let mode: "ask" | "accept-edits" = "ask";
  const view = new ConversationView(createStyle(false), () => 200);
  const ctx: SlashContext = {
    view,
    theme: createStyle(false),
    cwd: "/ws",
    env: { SCV_HOME: process.env.SCV_HOME!, HOME: process.env.HOME! },
    session: () => ({ id: "s-1", model: "fake-model", tools: ["read", "bash"] }),
    switched: (next) => void calls.push(`switched ${next.model}`),
    request: async (method, params) => {
      calls.push(`request ${method} ${JSON.stringify(params)}`);
      return { compacted: false } as any;
    },
    startSession: async (resume, modelName) => void calls.push(`start ${resume ?? "-"} ${modelName ?? "-"}`),
    closeSession: async () => void calls.push("close"),
    openPicker: async (startFresh) => void calls.push(`picker ${startFresh}`),
    rewind: async (which) => void calls.push(`rewind ${which}`),
    quit: async () => void calls.push("quit"),
    requestRender: () => void calls.push("render"),
    usage: async () => ["this session: 1,234 tokens · cost 0.0100"],
    mode: () => mode,
    setMode: async (next) => {
      mode = next;
      calls.push(`mode ${next}`);
    },
    ...overrides,
  };
  return { ctx, calls, said: () => view.takeCommitted() };
}

test("/tools and /status say what the session is", async () => {
  const { ctx, said } = context();
  await runSlashCommand(ctx, "tools", "");
  await runSlashCommand(ctx, "status", "");
  expect(said()).toEqual([
    "tools: read, bash",
    "model fake-model · session s-1 · workspace /ws",
    "memory: USER.md empty (cap 4.0 KiB); project notes empty (cap 8.0 KiB)",
    expect.stringMatching(/^sandbox: (workspace-write \(|off |no sandbox)/),
  ]);
});

test("/memory shows the owner's memory files with their sizes and paths; /status their sizes", async () => {
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const home = process.env.SCV_HOME!;
  mkdirSync(join(home, "memory"), { recursive: true });
  writeFileSync(join(home, "memory", "USER.md"), "- Prefers metric units.\n");
  try {
    const { ctx, said } = context({ env: { SCV_HOME: home, HOME: process.env.HOME! } });
    await runSlashCommand(ctx, "memory", "");
    const lines = said();
    expect(lines[0]).toBe(`USER.md: 24 bytes of 4.0 KiB · ${join(home, "memory", "USER.md")}`);
    expect(lines[1]).toBe("- Prefers metric units.");
    expect(lines.at(-1)).toStartWith("Project notes for /ws: empty (cap 8.0 KiB) · ");
    await runSlashCommand(ctx, "status", "");
    expect(said().at(-2)).toBe("memory: USER.md 24 bytes of 4.0 KiB; project notes empty (cap 8.0 KiB)");
  } finally {
    const { rmSync } = await import("node:fs");
    rmSync(join(home, "memory"), { recursive: true, force: true });
  }
});

test("/status says how much of the model's context window the last request used", async () => {
  const { ctx, said } = context({ session: () => ({ id: "s-1", model: "fake-model", tools: [], contextWindow: 128_000 }) });
  ctx.view.lastUsage = { input_tokens: 32_000, output_tokens: 10 };
  await runSlashCommand(ctx, "status", "");
  expect(said()[1]).toBe("context used by the last request: 32.0k tokens of 128.0k (25%); this session so far 0");
  // A server older than context_window: the count alone.
  const old = context();
  old.ctx.view.lastUsage = { input_tokens: 950, output_tokens: 1 };
  await runSlashCommand(old.ctx, "status", "");
  expect(old.said()[1]).toStartWith("context used by the last request: 950 tokens;");
});

test("/new and /resume ID close the session before starting the next; /resume alone opens the picker", async () => {
  const { ctx, calls } = context();
  await runSlashCommand(ctx, "new", "");
  await runSlashCommand(ctx, "resume", "s-2");
  await runSlashCommand(ctx, "resume", "");
  expect(calls.filter((c) => c !== "render")).toEqual(["close", "start - -", "close", "start s-2 -", "picker false"]);
});

test("/model NAME and /effort LEVEL switch the same session (session.configure), never closing it", async () => {
  const configured = { provider: "default", model: "other", wire_api: "responses", reasoning_effort: "low", context_window: 1000 };
  const { ctx, calls, said } = context({
    request: async (method, params) => {
      calls.push(`request ${method} ${JSON.stringify(params)}`);
      return configured as any;
    },
  });
  await runSlashCommand(ctx, "model", "other");
  await runSlashCommand(ctx, "effort", "low");
  await runSlashCommand(ctx, "effort", "loud");
  expect(calls.filter((c) => c !== "render")).toEqual([
    'request session.configure {"session_id":"s-1","model":"other"}',
    "switched other",
    'request session.configure {"session_id":"s-1","reasoning_effort":"low"}',
    "switched other",
  ]);
  expect(said()).toEqual([
    "model: other on default (responses API, effort low) from the next turn; the conversation goes on",
    "reasoning effort: low from the next turn (other)",
    "/effort takes one of none, minimal, low, medium, high, xhigh",
  ]);
});

test("/compact asks the server for this session and says when there was nothing to compact", async () => {
  const { ctx, calls, said } = context();
  await runSlashCommand(ctx, "compact", "");
  expect(calls).toContain('request session.compact {"session_id":"s-1"}');
  expect(said()).toEqual(["compacting…", "nothing to compact yet: the conversation is still short"]);
});

test("a failing command is said in the conversation, not thrown; /quit quits", async () => {
  const { ctx, calls, said } = context({ request: async () => Promise.reject(new Error("server gone")) });
  await runSlashCommand(ctx, "compact", "");
  expect(said()).toEqual(["compacting…", "/compact: server gone"]);
  await runSlashCommand(ctx, "quit", "");
  expect(calls.at(-1)).toBe("quit");
});

test("/mode says the mode and switches it; a word it does not know changes nothing", async () => {
  const { ctx, calls, said } = context();
  await runSlashCommand(ctx, "mode", "");
  expect(said()[0]).toStartWith("mode: ask");
  await runSlashCommand(ctx, "mode", "accept edits");
  expect(calls).toContain("mode accept-edits");
  await runSlashCommand(ctx, "mode", "");
  expect(said().at(-1)).toStartWith("mode: accept edits");
  await runSlashCommand(ctx, "mode", "yolo");
  expect(said().at(-1)).toContain("/mode takes ask or accept-edits");
  expect(calls.filter((c) => c.startsWith("mode "))).toEqual(["mode accept-edits"]);
});

test("/skills shows the drafts as diffs; /skills reject NAME throws one away; a wrong verb says how to use it", async () => {
  const { mkdtempSync, rmSync, existsSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { checkDraft, writeDraft } = await import("../../src/skills/index");
  const home = mkdtempSync(join(tmpdir(), "scv-tui-skills-"));
  try {
    const input = { action: "create" as const, name: "notes", skill: "---\nname: notes\ndescription: Notes.\n---\nkeep notes\n" };
    writeDraft(home, input, checkDraft(input, { projectSkillNames: [], scvHome: home }));
    const { ctx, said } = context({ env: { SCV_HOME: home, HOME: process.env.HOME! } });
    await runSlashCommand(ctx, "skills", "");
    const lines = said();
    expect(lines).toContain("  accept: /skills accept notes    reject: /skills reject notes");
    expect(lines).toContain("+keep notes");
    await runSlashCommand(ctx, "skills", "reject notes");
    expect(said()).toEqual(["notes: thrown away"]);
    expect(existsSync(join(home, "skill-drafts", "notes"))).toBe(false);
    await runSlashCommand(ctx, "skills", "frobnicate");
    expect(said()).toEqual(["/skills: usage: /skills, /skills accept NAME or /skills reject NAME"]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
