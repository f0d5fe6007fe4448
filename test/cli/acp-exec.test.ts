// `dist/scv exec` delegating to an agent over ACP: the compiled binary finds the stand-in server in
// ~/.local/bin, relays the agent's permission request through its approval gate and prints the result.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { ACP_AGENT, ACP_SERVER, script } from "../fake/acp-harness";
import { text, toolCalls } from "../fake/model-server";
import { exitWithPeak } from "../fake/proc";

const fake = fakeModelForFile();

test("exec --yes: claude over ACP, its permission request approved by the session's gate, progress as events; the server ends with exec", async () => {
  const { env, workspace, home } = fakeHome(fake.url);
  const logDir = join(home, "acp-log");
  mkdirSync(logDir);
  const bin = join(env.HOME!, ".local", "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(ACP_AGENT, join(bin, "claude-agent-acp"));
  const prompt = script([{ say: "Editing the file.\n" }, { ask: { title: "Write notes.txt", kind: "edit" } }, { say: "All done." }]);
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "claude", prompt } }]), text("Claude finished."));
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "--json", "delegate it"], {
    cwd: workspace,
    env: { ...env, FAKE_ACP_SERVER: ACP_SERVER, FAKE_ACP_BUN: process.execPath, FAKE_ACP_LOG: logDir, PATH: dirname(process.execPath) + ":/usr/bin:/bin" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code, stderr).toBe(0);
  const events = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const completed = events.find((e) => e.method === "tool.completed" && e.params?.tool === "agent");
  const result = JSON.parse(completed.params.output);
  expect(result).toMatchObject({ agent: "claude", status: "completed", session: "claude-1" });
  expect(result.reply).toBe("Editing the file.\npermission: allow-once\nAll done.");
  expect(events.some((e) => e.method === "tool.progress" && e.params.line === "Editing the file.")).toBe(true);
  const started = readdirSync(logDir).filter((n) => n.endsWith(".start.json"));
  expect(started).toHaveLength(1);
  expect(existsSync(`/proc/${Number.parseInt(started[0]!, 10)}`)).toBe(false);
}, 30_000);

test("an ACP agent streaming 40 MB without a newline: exec keeps bounded memory, finishes and reports a cut reply (red team finding 8)", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const bin = join(env.HOME!, ".local", "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(ACP_AGENT, join(bin, "claude-agent-acp"));
  const prompt = script([{ flood: { bytes: 40_000_000, chunk: 65536 } }, { say: "\nthe end" }]);
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "claude", prompt } }]), text("Claude flooded."));
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "--json", "delegate it"], {
    cwd: workspace,
    env: { ...env, FAKE_ACP_SERVER: ACP_SERVER, FAKE_ACP_BUN: process.execPath, PATH: dirname(process.execPath) + ":/usr/bin:/bin" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = new Response(proc.stdout).text();
  const { code, peak } = await exitWithPeak(proc);
  expect(code).toBe(0);
  expect(peak).toBeLessThan(150 * 1024 * 1024);
  const events = (await stdout).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const completed = events.find((e) => e.method === "tool.completed" && e.params?.tool === "agent");
  const result = JSON.parse(completed.params.output);
  expect(result.status).toBe("completed");
  expect(result.truncated).toBe(true);
  expect(events.at(-1).params.reply).toBe("Claude flooded.");
}, 60_000);
