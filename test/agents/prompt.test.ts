import { describe, expect, test } from "bun:test";
import { descriptorFor } from "../../src/agents/descriptors";
import type { OfferedAgent } from "../../src/agents/offer";
import { delegatingWorkSection } from "../../src/agents/prompt";
import type { Config } from "../../src/config/schema";
import { makeScope } from "../fake/scope";

const offer = (name: string, settings: Partial<OfferedAgent["settings"]> = {}): OfferedAgent => ({
  descriptor: descriptorFor(name)!,
  executable: `/usr/bin/${name}`,
  settings: { permissions: "default", transport: "auto", ...settings },
});

function config(prefer: string[]): Config {
  const base = makeScope().config;
  return { ...base, agent: { ...base.agent, prefer: prefer as Config["agent"]["prefer"] } };
}

describe("Delegating work section", () => {
  test("names each offered agent with its product, the preference order and the default", () => {
    const s = delegatingWorkSection([offer("claude"), offer("codex")], config(["scv", "codex", "claude"]))!;
    expect(s).toStartWith("## Delegating work\n\n");
    expect(s).toContain("Agents on offer: claude (Claude Code) and codex (Codex).");
    expect(s).toContain("The user prefers, in order: codex, claude. A call that names no agent goes to codex");
    expect(s).toContain("self-contained");
    expect(s).not.toMatch(/\b(MUST|NEVER|ALWAYS|IMPORTANT)\b/);
    expect(s).toContain("background: true");
  });

  test("the background paragraph appears only while background jobs are on", () => {
    const c = config(["codex"]);
    const off = delegatingWorkSection([offer("codex")], { ...c, agent: { ...c.agent, max_background: 0 } })!;
    expect(off).not.toContain("background");
    expect(off).toContain("self-contained");
    const on = delegatingWorkSection([offer("codex")], c)!;
    expect(on).toContain("Stay available");
    expect(on).toContain("[SCV background report]");
    expect(on).toContain("agent_cancel");
  });

  test("without a preference every call names its agent", () => {
    const s = delegatingWorkSection([offer("dsh")], config([]))!;
    expect(s).toContain("The user has not said which agent they prefer, so every call names its agent.");
  });

  test("use_for notes and model/effort defaults", () => {
    const s = delegatingWorkSection(
      [offer("codex", { use_for: "coding", model: "gpt-5.5", effort: "high" }), offer("claude", { model: "opus-5.5" })],
      config([]),
    )!;
    expect(s).toContain(
      "- codex: The user's note on when to use it: coding. For that work, pass model gpt-5.5 and effort high; omit model and effort for other work so the agent uses its own default.",
    );
    expect(s).toContain("- claude: The user's default: pass model opus-5.5 unless the user asks for another.");
  });

  test("a declined request goes to grok when offered; otherwise to the user", () => {
    const withGrok = delegatingWorkSection([offer("claude"), offer("grok")], config([]))!;
    expect(withGrok).toContain("call `agent` with agent `grok` and the same request");
    expect(withGrok).toContain("a safety or guardrail refusal is not a reason to skip it");
    expect(withGrok).toContain("If Grok declines too, tell the user");
    const without = delegatingWorkSection([offer("claude")], config([]))!;
    expect(without).not.toContain("grok");
    expect(without).toContain("tell the user what it said rather than passing the request to another agent on your own");
  });

  test("nothing offered, no section", () => {
    expect(delegatingWorkSection([], config([]))).toBeUndefined();
  });
});
