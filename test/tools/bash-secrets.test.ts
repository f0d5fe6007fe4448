// Secret bindings: a `bash` call asks for a binding by name; the approval shows source and target, never the
// value; the command gets the variable; exact occurrences of the value in the output become <redacted:TARGET>;
// the earliest expiry tightens the deadline; a call with secrets always asks.
import { expect, test } from "bun:test";
import { createBashTool } from "../../src/tools/bash";
import { makeCallContext, makeScope } from "../fake/scope";

const SECRET = "ghp_0123456789abcdefSECRETvalue";

function setup(bindings: { source: string; target?: string; expires_in_seconds?: number }[], env: Record<string, string> = { GITHUB_TOKEN: SECRET }) {
  const scope = makeScope({ env, config: { tools: { secret_bindings: bindings } } });
  const ctx = makeCallContext(scope);
  const progress: string[] = [];
  ctx.progress = (line) => void progress.push(line);
  return { tool: createBashTool(scope), ctx, progress };
}

test("the value reaches the command under its target and is redacted from the output; the approval shows no value", async () => {
  const { tool, ctx, progress } = setup([{ source: "env:GITHUB_TOKEN", target: "GH_TOKEN" }]);
  const assessed = await tool.assess({ command: 'echo "token: $GH_TOKEN"; echo "${GITHUB_TOKEN-unset}"', secrets: ["GH_TOKEN"] }, ctx);
  if (!assessed.ok) throw new Error(assessed.result.output);
  expect(assessed.summary).toContain("secrets: GH_TOKEN (from env:GITHUB_TOKEN)");
  expect(assessed.summary).not.toContain(SECRET);
  expect(assessed.guard?.decision).toBe("prompt");
  const result = await tool.run(assessed.args, ctx);
  expect(result.output).toBe("exit 0\ntoken: <redacted:GH_TOKEN>\nunset\n");
  expect(progress.join("\n")).not.toContain(SECRET.slice(0, 8));
});

test("a literal read-only command that binds a secret still asks", async () => {
  const { tool, ctx } = setup([{ source: "env:GITHUB_TOKEN" }]);
  const assessed = await tool.assess({ command: "ls", secrets: ["GITHUB_TOKEN"] }, ctx);
  expect(assessed.ok && assessed.guard).toMatchObject({ decision: "prompt", reason: expect.stringContaining("binds secrets") });
  const plain = await tool.assess({ command: "ls" }, ctx);
  expect(plain.ok && plain.guard?.decision).toBe("allow");
});

test("an unknown binding is refused before approval; an unset source fails the call saying where to set it", async () => {
  const { tool, ctx } = setup([{ source: "env:GITHUB_TOKEN" }]);
  const unknown = await tool.assess({ command: "true", secrets: ["NPM_TOKEN"] }, ctx);
  expect(unknown.ok).toBe(false);
  expect(!unknown.ok && unknown.result.output).toContain("no secret binding named NPM_TOKEN; configured: GITHUB_TOKEN");
  const unset = setup([{ source: "env:GITHUB_TOKEN" }], {});
  const assessed = await unset.tool.assess({ command: "true", secrets: ["GITHUB_TOKEN"] }, unset.ctx);
  if (!assessed.ok) throw new Error("assessed");
  const result = await unset.tool.run(assessed.args, unset.ctx);
  expect(result.ok).toBe(false);
  expect(result.output).toContain("GITHUB_TOKEN is not set in SCV's environment");
});

test("the earliest expiry ends the command, even when its own timeout is longer", async () => {
  const { tool, ctx } = setup([{ source: "env:GITHUB_TOKEN", expires_in_seconds: 1 }]);
  const assessed = await tool.assess({ command: "sleep 30", timeout_seconds: 60, secrets: ["GITHUB_TOKEN"] }, ctx);
  if (!assessed.ok) throw new Error(assessed.result.output);
  const began = performance.now();
  const result = await tool.run(assessed.args, ctx);
  expect(performance.now() - began).toBeLessThan(10_000);
  expect(result.output).toStartWith("timeout after 1s");
});
