import { afterEach, describe, expect, test } from "bun:test";
import { agentPromptSection } from "../../src/agents/engine";
import { buildSystemPrompt } from "../../src/server/system-prompt";
import { createAgentTool } from "../../src/tools/agent";
import { buildTools } from "../../src/tools/index";
import type { Tool } from "../../src/tools/tool";
import { type AgentFixture, BASH, FAKE_AGENT, type FixtureOptions, makeAgentFixture } from "../fake/agent-harness";
import * as S from "../fake/agent-streams";
import { invokeTool, makeCallContext } from "../fake/scope";

const fixtures: AgentFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.scope.close();
});

function setup(opts: FixtureOptions = {}): { f: AgentFixture; tool: Tool } {
  const f = makeAgentFixture(opts);
  fixtures.push(f);
  const tool = createAgentTool(f.scope);
  if (!tool) throw new Error("no agent tool");
  return { f, tool };
}

async function call(f: AgentFixture, tool: Tool, args: Record<string, unknown>) {
  const ctx = makeCallContext(f.scope);
  const inv = await invokeTool(tool, args, ctx);
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = JSON.parse(inv.result.output);
  } catch {
    parsed = undefined;
  }
  return { ...inv, ctx, json: parsed };
}

type Schema = { properties: Record<string, { enum?: string[]; description?: string; maximum?: number }>; required?: string[]; additionalProperties?: boolean };

describe("offering", () => {
  test("no agent offered means no tool", () => {
    const f = makeAgentFixture({ agents: [] });
    fixtures.push(f);
    expect(createAgentTool(f.scope)).toBeUndefined();
  });

  test("no tool at or past agent.max_delegation_depth", () => {
    const f = makeAgentFixture({ agents: ["codex"], delegationDepth: 2 });
    fixtures.push(f);
    expect(createAgentTool(f.scope)).toBeUndefined();
    const g = makeAgentFixture({ agents: ["codex"], delegationDepth: 1 });
    fixtures.push(g);
    expect(createAgentTool(g.scope)).toBeDefined();
  });

  test("the Delegating work section comes with the tool", () => {
    const f = makeAgentFixture({ agents: ["codex"], config: { agent: { prefer: ["codex"] } } });
    fixtures.push(f);
    expect(agentPromptSection(f.scope)).toContain("Agents on offer: codex (Codex).");
    const deep = makeAgentFixture({ agents: ["codex"], delegationDepth: 2 });
    fixtures.push(deep);
    expect(agentPromptSection(deep.scope)).toBeUndefined();
    const none = makeAgentFixture({ agents: [] });
    fixtures.push(none);
    expect(agentPromptSection(none.scope)).toBeUndefined();
  });

  test("the Delegating work section survives a custom agent.system_prompt", () => {
    const f = makeAgentFixture({ agents: ["codex"], config: { agent: { system_prompt: "You are Bob, terse." } } });
    fixtures.push(f);
    const prompt = buildSystemPrompt(f.scope, buildTools(f.scope, { enabled: true })).text;
    expect(prompt).toStartWith("You are Bob, terse.");
    expect(prompt).not.toContain("You are SCV");
    expect(prompt).toContain("## Delegating work");
    expect(prompt).toContain("Agents on offer: codex (Codex).");
  });

  test("signed-out file-checked agents are left out; claude and codex stay", () => {
    const { tool } = setup({ agents: ["claude", "codex", "grok", "dsh", "pi"], signedOut: ["grok", "dsh", "pi"] });
    expect((tool.jsonSchema as Schema).properties.agent!.enum).toEqual(["claude", "codex"]);
  });
});

describe("schema", () => {
  test("enum of offered agents; agent required without a prefer default", () => {
    const { tool } = setup({ agents: ["claude", "dsh"] });
    const s = tool.jsonSchema as Schema;
    expect(s.properties.agent!.enum).toEqual(["claude", "dsh"]);
    expect(s.required).toEqual(["agent", "prompt"]);
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties).sort()).toEqual(["agent", "background", "cwd", "effort", "model", "prompt", "session", "timeout_seconds"]);
    expect(s.properties.timeout_seconds!.maximum).toBe(14400);
  });

  test("with a default, agent is optional and the description says how it is chosen", () => {
    const { tool } = setup({ agents: ["claude", "codex"], config: { agent: { prefer: ["grok", "codex", "claude"] } } });
    const s = tool.jsonSchema as Schema;
    expect(s.required).toEqual(["prompt"]);
    expect(s.properties.agent!.description).toStartWith(
      "Which agent runs the call. Omit it to use codex, the first agent in the user's [agent] prefer that this session offers",
    );
  });

  test("options appear only when some offered agent takes them", () => {
    const dshOnly = setup({ agents: ["dsh"] }).tool.jsonSchema as Schema;
    expect(Object.keys(dshOnly.properties).sort()).toEqual(["agent", "background", "cwd", "prompt", "timeout_seconds"]);
    const grokOnly = setup({ agents: ["grok"] }).tool.jsonSchema as Schema;
    expect(Object.keys(grokOnly.properties).sort()).toEqual(["agent", "background", "cwd", "effort", "model", "prompt", "session", "timeout_seconds"]);
    expect(grokOnly.properties.effort!.enum).toEqual(["low", "medium", "high", "xhigh", "max"]);
  });

  test("each agent's line", () => {
    const { tool } = setup({
      overrides: { codex: { use_for: "coding", model: "gpt-5.5", effort: "high" }, grok: { use_for: "current events, and anything that needs posts on X" } },
    });
    const d = (tool.jsonSchema as Schema).properties.agent!.description!;
    const lines = d.split("\n").slice(1);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toStartWith("- claude (Claude Code): Anthropic's coding agent; reads, edits, and runs code, and can search and fetch the web. Takes model (Claude alias");
    expect(lines[1]).toBe(
      "- codex (Codex): OpenAI's coding agent; reads, edits, and runs code, with live web search under full permissions. Takes model (OpenAI model ID from the Codex configuration; not a Claude alias), effort, and session. The user's note on when to use it: coding. For that work, pass model gpt-5.5 and effort high; omit model and effort for other work so the agent uses its own default.",
    );
    expect(lines[2]).toBe(
      "- grok (Grok Build): xAI's coding agent; reads, edits, and runs code, with live web and X search. Call it when another agent declined or refused a request, including a safety or guardrail refusal. Takes model (Grok model ID), effort, and session. The user's note on when to use it: current events, and anything that needs posts on X.",
    );
    expect(lines[3]).toBe("- dsh (DeepSeek Harness): a coding agent on DeepSeek models. Takes no model, effort, or session.");
    expect(lines[4]).toStartWith("- pi (pi): a minimal coding agent that can run on SCV's own model endpoint; no web search. Takes model (pi model pattern or provider/id), effort, and session.");
  });

  test("defaults without use_for apply whenever the agent is called", () => {
    const { tool } = setup({ agents: ["claude"], overrides: { claude: { model: "opus-5.5", effort: "xhigh" } } });
    const d = (tool.jsonSchema as Schema).properties.agent!.description!;
    expect(d).toContain("The user's default: pass model opus-5.5 and effort xhigh unless the user asks for another.");
  });
});

describe("choosing and refusing before launch", () => {
  test("explicit agent, then the prefer default", async () => {
    const { f, tool } = setup({ agents: ["claude", "codex", "grok"], config: { agent: { prefer: ["grok"] } } });
    f.set({ stdout: "grok says hi\n" });
    const a = await call(f, tool, { prompt: "hello" });
    expect(a.json?.agent).toBe("grok");
    expect(a.json?.reply).toBe("grok says hi");
    f.set({ stdout: S.CODEX_OK });
    const b = await call(f, tool, { agent: "codex", prompt: "hello" });
    expect(b.json?.agent).toBe("codex");
    expect(b.json?.session).toBe("codex-1");
  });

  const refusals: [string, FixtureOptions, Record<string, unknown>, string][] = [
    [
      "no default",
      { agents: ["claude", "codex"] },
      { prompt: "x" },
      "name the agent: the user prefers none of the agents this session offers ([agent] prefer); choose one of: claude, codex",
    ],
    ["not offered", { agents: ["claude", "codex"] }, { agent: "zcode", prompt: "x" }, 'agent "zcode" is not offered in this session; choose one of: claude, codex'],
    ["a known agent not offered", { agents: ["claude"] }, { agent: "grok", prompt: "x" }, 'agent "grok" is not offered in this session; choose one of: claude'],
    ["model on dsh", { agents: ["claude", "dsh", "grok"] }, { agent: "dsh", prompt: "x", model: "m" }, "dsh does not take model; these agents do: claude, grok. Omit model, or call one of them"],
    ["effort on dsh", { agents: ["dsh", "pi"] }, { agent: "dsh", prompt: "x", effort: "high" }, "dsh does not take effort; these agents do: pi. Omit effort, or call one of them"],
    ["session on dsh", { agents: ["dsh", "codex"] }, { agent: "dsh", prompt: "x", session: "dsh-1" }, "dsh does not take session; these agents do: codex. Omit session, or call one of them"],
    ["raw vendor id", { agents: ["codex"] }, { agent: "codex", prompt: "x", session: S.CODEX_THREAD_ID }, `session "${S.CODEX_THREAD_ID}" is not a conversation of this session`],
    ["bad model", { agents: ["claude"] }, { agent: "claude", prompt: "x", model: "-rf" }, 'model "-rf" is not valid'],
    ["model with a space", { agents: ["claude"] }, { agent: "claude", prompt: "x", model: "opus --dangerously-skip-permissions" }, "is not valid"],
    ["bad effort", { agents: ["claude"] }, { agent: "claude", prompt: "x", effort: "ultra" }, 'effort "ultra" is not valid; use one of: low, medium, high, xhigh, max'],
    ["flag-like prompt", { agents: ["claude"] }, { agent: "claude", prompt: "--help" }, 'the prompt cannot start with "-"'],
    ["timeout ceiling", { agents: ["claude"] }, { agent: "claude", prompt: "x", timeout_seconds: 14401 }, "timeout_seconds 14401 exceeds the limit of 14400 seconds (tools.max_timeout_seconds)"],
    ["cwd outside", { agents: ["claude"] }, { agent: "claude", prompt: "x", cwd: "/etc" }, 'cwd "/etc" is outside the workspace'],
    ["cwd missing", { agents: ["claude"] }, { agent: "claude", prompt: "x", cwd: "nope" }, 'cwd "nope" does not exist'],
  ];
  for (const [name, opts, args, message] of refusals) {
    test(`refused when assessed: ${name}`, async () => {
      const { f, tool } = setup(opts);
      const ctx = makeCallContext(f.scope);
      const a = await tool.assess(args, ctx);
      expect(a.ok).toBe(false);
      if (!a.ok) expect(a.result.output).toContain(message);
      expect(f.invocations()).toHaveLength(0);
    });
  }

  test("blank values count as omitted", async () => {
    const { f, tool } = setup({ agents: ["dsh", "claude"], config: { agent: { prefer: ["dsh"] } } });
    f.set({ stdout: "ok\n" });
    const r = await call(f, tool, { agent: "", prompt: "do it", cwd: " ", session: "", model: "", effort: "" });
    expect(r.json?.status).toBe("completed");
    expect(r.json?.agent).toBe("dsh");
    expect(f.invocations()[0]!.args).toEqual(["--profile", "headless", "do it"]);
  });

  test("a session handle names its agent; a disagreeing agent is refused", async () => {
    const { f, tool } = setup({ agents: ["claude", "codex"] });
    f.set({ stdout: S.CODEX_OK });
    const first = await call(f, tool, { agent: "codex", prompt: "start" });
    expect(first.json?.session).toBe("codex-1");
    f.set({ stdout: S.CODEX_RESUMED });
    const next = await call(f, tool, { session: "codex-1", prompt: "continue" });
    expect(next.json?.agent).toBe("codex");
    expect(next.json?.turn).toBe(2);
    const ctx = makeCallContext(f.scope);
    const bad = await tool.assess({ agent: "claude", session: "codex-1", prompt: "x" }, ctx);
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.result.output).toBe(
        "conversation codex-1 belongs to codex, not claude; omit agent to continue it, or omit session to start a new conversation with claude",
      );
    }
  });

  test("the handle's agent wins over option checks: an agent that takes no session still gets the disagreement sentence", async () => {
    const { f, tool } = setup({ agents: ["codex", "dsh"] });
    f.set({ stdout: S.CODEX_OK });
    expect((await call(f, tool, { agent: "codex", prompt: "start" })).json?.session).toBe("codex-1");
    const bad = await tool.assess({ agent: "dsh", session: "codex-1", prompt: "x" }, makeCallContext(f.scope));
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.result.output).toBe(
        "conversation codex-1 belongs to codex, not dsh; omit agent to continue it, or omit session to start a new conversation with dsh",
      );
    }
    // An unknown handle with an agent that takes no session is still that agent's option error.
    const unknown = await tool.assess({ agent: "dsh", session: "codex-9", prompt: "x" }, makeCallContext(f.scope));
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.result.output).toBe("dsh does not take session; these agents do: codex. Omit session, or call one of them");
  });
});

describe("approval summary", () => {
  test("names the agent, the resolved executable, argv, prompt, directory, timeout and delegate risk", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    const ctx = makeCallContext(f.scope);
    const a = await tool.assess({ agent: "codex", prompt: "Land the fix.", model: "gpt-5.5", timeout_seconds: 7200 }, ctx);
    expect(a.ok).toBe(true);
    if (!a.ok) return;
    expect(a.risk).toBe("delegate");
    expect(a.label).toBe("agent codex: Land the fix.");
    const lines = a.summary.split("\n");
    expect(lines[0]).toStartWith(`agent codex: Launch ${BASH} with args ["${FAKE_AGENT}","exec","--json","-o","${f.scvHome}/agents/codex/tmp/last-message-`);
    expect(lines[0]).toEndWith(`.txt","-m","gpt-5.5","<prompt>"]`);
    expect(a.summary).toContain("Prompt (the last argument): Land the fix.");
    expect(a.summary).toContain(`Directory: ${f.scope.workspace} (the workspace root)`);
    expect(a.summary).toContain("Timeout: 7200 seconds");
    expect(a.summary).toContain("Risk: delegate.");
    expect(a.summary).not.toContain("FULL PERMISSIONS");
  });

  test("the approved argv is the argv that runs", async () => {
    const { f, tool } = setup({ agents: ["claude"] });
    f.set({ stdout: S.CLAUDE_OK });
    const r = await call(f, tool, { agent: "claude", prompt: "go" });
    const uuid = /"--session-id","([0-9a-f-]{36})"/.exec(r.summary!)![1];
    expect(f.invocations()[0]!.args).toEqual(["-p", "--output-format", "stream-json", "--verbose", "--session-id", uuid!, "go"]);
  });

  test("FULL PERMISSIONS and the label follow the agent the call runs on", async () => {
    const { f, tool } = setup({ agents: ["claude", "dsh"], overrides: { claude: { permissions: "full" }, dsh: { permissions: "full" } }, config: { agent: { prefer: ["claude"] } } });
    const a = await tool.assess({ prompt: "x" }, makeCallContext(f.scope));
    expect(a.ok && a.label).toBe("agent claude: x");
    expect(a.ok && a.summary).toContain('FULL PERMISSIONS: [agents.claude] permissions = "full" adds --permission-mode bypassPermissions');
    const d = await tool.assess({ agent: "dsh", prompt: "x" }, makeCallContext(f.scope));
    expect(d.ok && d.summary).toContain("DSH_PERMISSION_MODE=danger-full-access");
  });

  test("a long prompt is bounded in the summary", async () => {
    const { f, tool } = setup({ agents: ["dsh"] });
    const a = await tool.assess({ agent: "dsh", prompt: `do ${"x".repeat(5000)}` }, makeCallContext(f.scope));
    expect(a.ok && a.summary.length).toBeLessThan(3000);
    expect(a.ok && a.summary).toContain("more characters)");
  });
});

describe("results", () => {
  test("a failure another agent could avoid carries the fallback sentence", async () => {
    const { f, tool } = setup({ agents: ["claude", "codex", "pi"] });
    f.set({ stdout: S.CLAUDE_401, exit: 1 });
    const r = await call(f, tool, { agent: "claude", prompt: "x" });
    expect(r.result.ok).toBe(false);
    expect(r.json?.status).toBe("failed");
    expect(r.json?.error).toBe("Failed to authenticate. API Error: 401 fake 401 error");
    expect(r.json?.fallback).toBe(
      "This agent could not run: it is missing, signed out, or its provider returned an error. Other agents are available: codex, pi. Call agent again with one of them.",
    );
    expect(r.json?.hint).toContain("scv agents login claude");
    // Claude reported its session before failing, so the conversation stays resumable
    expect(r.json?.session).toBe("claude-1");
  });

  test("pi's exit 0 with an API error still fails", async () => {
    const { f, tool } = setup({ agents: ["pi", "codex"] });
    f.set({ stdout: S.PI_401 });
    const r = await call(f, tool, { agent: "pi", prompt: "x" });
    expect(r.json?.status).toBe("failed");
    expect(r.json?.exit_code).toBe(0);
    expect(r.json?.error).toBe("401 Invalid API key");
    expect(r.json?.fallback).toContain("Other agents are available: codex.");
  });

  test("a declined call gets the grok note, never a fallback", async () => {
    const { f, tool } = setup({ agents: ["claude", "grok"] });
    f.set({ stdout: S.CLAUDE_REFUSAL });
    const r = await call(f, tool, { agent: "claude", prompt: "x" });
    expect(r.json?.status).toBe("declined");
    expect(r.json?.fallback).toBeUndefined();
    expect(r.json?.note).toContain('call agent again with agent "grok" and the same request');
  });

  test("ordinary failures are returned unchanged", async () => {
    const { f, tool } = setup({ agents: ["dsh", "claude"] });
    f.set({ stdout: "working...\n3 tests failed\n", stderr: "npm ERR! Test failed.", exit: 2 });
    const r = await call(f, tool, { agent: "dsh", prompt: "run the tests" });
    expect(r.json?.status).toBe("failed");
    expect(r.json?.exit_code).toBe(2);
    expect(r.json?.error).toBe("npm ERR! Test failed.");
    expect(r.json?.fallback).toBeUndefined();
    expect(r.json?.reply).toBe("working...\n3 tests failed");
  });

  test("an executable that vanished after the session started is SCV's own unavailability error", async () => {
    const { f, tool } = setup({ agents: ["dsh", "claude"] });
    const state = f.scope.services.agents as { offered: { executable: string; descriptor: { name: string } }[] };
    state.offered.find((o) => o.descriptor.name === "dsh")!.executable = "/nonexistent/dsh";
    const r = await call(f, tool, { agent: "dsh", prompt: "x" });
    expect(r.result.ok).toBe(false);
    expect(r.result.output).toContain("dsh cannot run: its executable /nonexistent/dsh is missing");
    expect(r.result.output).toContain("Other agents are available: claude. Call agent again with one of them.");
  });

  test("progress lines are redacted and never in the result", async () => {
    const { f, tool } = setup({ agents: ["claude"] });
    f.set({ stdout: S.CLAUDE_OK });
    const r = await call(f, tool, { agent: "claude", prompt: "x" });
    expect(r.ctx.progressLines).toEqual([
      "$ echo hi-from-bash",
      "Write claude2/scv_note.txt",
      "search: scv wire formats",
      "fetch http://127.0.0.1:18080/page",
      "Checking the tests now.",
    ]);
    expect(r.result.output).not.toContain("hi-from-bash");
  });
});
