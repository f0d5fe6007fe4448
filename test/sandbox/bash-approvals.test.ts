// The bash tool on top of the sandbox: what runs unasked inside it, what still asks, what only a person may
// approve, and how a denial reads to the model. Real launcher (from source), real processes.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApprovalGate } from "../../src/approval/gate";
import { createBashTool } from "../../src/tools/bash";
import { invokeTool, makeCallContext, makeScope, type ScopeOptions } from "../fake/scope";

const outside = mkdtempSync(join("/var/tmp", "scv-sandbox-approvals-"));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

function setup(opts: ScopeOptions = {}) {
  const scope = makeScope(opts);
  const ctx = makeCallContext(scope);
  const tool = createBashTool(scope);
  const assess = async (args: Record<string, unknown>) => {
    const a = await tool.assess(args, ctx);
    if (!a.ok) throw new Error(a.result.output);
    return a;
  };
  return { scope, ctx, tool, assess, bash: (args: unknown) => invokeTool(tool, args, ctx) };
}

test("auto_run: a command the guard would ask about runs unasked inside the sandbox; block is still refused", async () => {
  const { assess } = setup();
  const npm = await assess({ command: "npm test" });
  expect(npm.guard).toMatchObject({ decision: "allow" });
  expect(npm.guard!.reason).toContain("confined by the sandbox");
  expect(npm.guard!.sandbox).toMatch(/^sandboxed: workspace-write \(Landlock ABI \d+/);
  expect(npm.summary).toContain("sandboxed: workspace-write");
  expect((await assess({ command: "rm -rf ~" })).guard!.decision).toBe("block");
});

test("auto_run: a call binding secrets still asks inside the sandbox, where the same command without them runs unasked", async () => {
  const { assess } = setup({ env: { GITHUB_TOKEN: "ghp_not-a-real-token" }, config: { tools: { secret_bindings: [{ source: "env:GITHUB_TOKEN" }] } } as never });
  expect((await assess({ command: "npm test" })).guard).toMatchObject({ decision: "allow" });
  const bound = await assess({ command: "npm test", secrets: ["GITHUB_TOKEN"] });
  expect(bound.guard).toMatchObject({ decision: "prompt" });
  expect(bound.guard!.reason).not.toContain("confined by the sandbox");
  expect(bound.guard!.sandbox).toStartWith("sandboxed: ");
  // Even a read-only command: the secret is what is asked about.
  expect((await assess({ command: "ls", secrets: ["GITHUB_TOKEN"] })).guard).toMatchObject({ decision: "prompt", reason: expect.stringContaining("binds secrets") });
});

test("auto_run does not answer a command that may destroy what rewind cannot bring back: it asks, saying why", async () => {
  const { scope, assess } = setup();
  mkdirSync(join(scope.workspace, "build"));
  writeFileSync(join(scope.workspace, "build", "out.o"), "o\n");
  writeFileSync(join(scope.workspace, ".env"), "K=1\n");
  const bulk = await assess({ command: "rm -rf build" });
  expect(bulk.guard).toMatchObject({ decision: "prompt", reason: "it deletes files in bulk (`rm -rf`), and rewind cannot bring back the ignored, secret-like or large files among them" });
  expect(bulk.guard!.sandbox).toStartWith("sandboxed: ");
  expect((await assess({ command: "rm .env" })).guard!.reason).toContain("secret-like");
  // A file checkpoints record: confined by the sandbox, /undo brings it back.
  expect((await assess({ command: "rm build/out.o" })).guard).toMatchObject({ decision: "allow" });
});

test("without auto_run the sandboxed command asks, and the card says it runs sandboxed", async () => {
  const { assess } = setup({ config: { sandbox: { auto_run: false } } as never });
  const a = await assess({ command: "npm test" });
  expect(a.guard).toMatchObject({ decision: "prompt" });
  expect(a.guard!.sandbox).toStartWith("sandboxed: ");
});

test("an unsandboxed request always asks a person: no auto-approval, no rule to keep; refused where nobody can be asked", async () => {
  const { assess } = setup();
  const a = await assess({ command: "ls", unsandboxed: "needs the network" });
  expect(a.guard).toMatchObject({ decision: "prompt", personOnly: true });
  expect(a.guard!.rulePrefix).toBeUndefined();
  expect(a.guard!.sandbox).toBe("not sandboxed: asked to run outside the sandbox (needs the network)");
  const request = { callId: "c1", tool: "bash", risk: a.risk, summary: a.summary, guard: a.guard };
  // auto_approve (--yes, a chat owner's session, an editor's approve-all) does not answer it.
  expect((await createApprovalGate({ policy: "on-risk", autoApprove: true }).decide(request)).approved).toBe(false);
  let asked = 0;
  const person = createApprovalGate({ policy: "on-risk", autoApprove: true, ask: async () => (asked++, true) });
  expect((await person.decide(request)).approved).toBe(true);
  expect(asked).toBe(1);
  // A blocked command stays blocked however it asks to run.
  expect((await assess({ command: "rm -rf ~", unsandboxed: "please" })).guard!.decision).toBe("block");
  const { bash } = setup();
  const bad = await bash({ command: "ls", unsandboxed: "  " });
  expect(bad.result.output).toContain("unsandboxed: must say why");
});

test("a lone git command that writes .git runs outside and asks; with shell syntax around it, it stays inside", async () => {
  const { assess } = setup();
  const commit = await assess({ command: `git commit -qam "fix: add"` });
  expect(commit.guard!.decision).toBe("prompt");
  expect(commit.guard!.sandbox).toContain("not sandboxed: it writes the repository's .git");
  const chained = await assess({ command: "git commit -qam x; rm -rf /tmp/y" });
  expect(chained.guard!.sandbox).toStartWith("sandboxed: ");
});

test("mode off: nothing is sandboxed and the guard decides as before", async () => {
  const { assess, tool } = setup({ config: { sandbox: { mode: "off" } } as never });
  const a = await assess({ command: "npm test" });
  expect(a.guard!.decision).toBe("prompt");
  expect(a.guard!.sandbox).toBe('not sandboxed: [sandbox] mode = "off" in your user config');
  expect(tool.description).toContain("(not sandboxed)");
});

test("a denied write is explained in words, with how to ask for more", async () => {
  const { bash, scope } = setup();
  const target = join(outside, "w");
  const { result: r } = await bash({ command: `echo x > ${target}` });
  expect(r.ok).toBe(false);
  expect(existsSync(target)).toBe(false);
  expect(r.output).toContain("[sandbox: this command ran in the workspace-write sandbox, which may have denied");
  expect(r.output).toContain(`"unsandboxed": "<why>"`);
  expect(r.event).toMatchObject({ sandbox: "workspace-write" });
  // Inside the workspace it writes, and /tmp is its own.
  const { result: ok } = await bash({ command: "echo hi > f && cat f && echo t > /tmp/t && cat /tmp/t" });
  expect(ok.output).toContain("hi\nt");
  expect(existsSync(join(scope.workspace, "f"))).toBe(true);
}, 30_000);

test("a launch the sandbox refuses fails the call with the launcher's reason: the command never ran", async () => {
  const { scope, bash } = setup();
  const marker = join(outside, "launch-refused-ran");
  rmSync(scope.workspace, { recursive: true, force: true }); // the launcher cannot confine (or enter) a missing workspace
  const { result } = await bash({ command: `touch ${marker}` });
  expect(result.ok).toBe(false);
  expect(result.output).toStartWith("the command was not run: ");
  expect(result.output).toEndWith("(the sandbox could not be applied; see scv doctor)");
  expect(result.output).not.toContain("exit 125");
  expect(existsSync(marker)).toBe(false);
});
