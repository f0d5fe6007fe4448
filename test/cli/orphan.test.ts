// An orphan left by a SIGKILLed `dist/scv server --stdio` is listed by `scv agents ps --all` and stopped by
// the next server's start-up reconcile. Real binary, real processes, the fake agent script as the CLI.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASH, FAKE_AGENT, signIn } from "../fake/agent-harness";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { until } from "../fake/until";
import { alive, guardOf } from "../fake/proc";

const fake = fakeModelForFile();


test("SIGKILLed server whose guard was killed too: its delegation is an orphan, listed, then stopped by the next server's reconcile", async () => {
  const { env, workspace, home } = fakeHome(fake.url, `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`);
  signIn(home, "dsh");
  const logDir = join(home, "agent-log");
  const out = join(home, "agent-out.txt");
  writeFileSync(out, "never seen");
  mkdirSync(logDir);
  const agentEnv = { ...env, FAKE_AGENT_LOG: logDir, FAKE_AGENT_STDOUT: out, FAKE_AGENT_SLEEP: "300", FAKE_AGENT_CHILD: "1" };
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "work for a long time" } }]), text("unreached"));

  const server = Bun.spawn([requireBinary(), "server", "--stdio"], { cwd: workspace, env: agentEnv, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const send = (o: unknown) => (server.stdin.write(`${JSON.stringify(o)}\n`), server.stdin.flush());
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } });
  send({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: workspace, auto_approve: true } });
  const reader = server.stdout.getReader();
  let buf = "";
  const sid = await (async () => {
    for (;;) {
      const { value } = await reader.read();
      buf += new TextDecoder().decode(value);
      const m = buf.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((x) => x.id === 2);
      if (m) return m.result.session_id as string;
    }
  })();
  send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: sid, prompt: "delegate" } });

  const recordsDir = join(home, "state", "delegations");
  const recordFile = await until("the delegation record", () =>
    existsSync(recordsDir) ? readdirSync(recordsDir).find((f) => f.endsWith(".json") && !f.startsWith(".")) : undefined,
  );
  const record = JSON.parse(readFileSync(join(recordsDir, recordFile), "utf8"));
  const childPid = await until("the agent's background child", () => {
    const f = readdirSync(logDir).find((n) => n.endsWith(".child"));
    return f ? Number(readFileSync(join(logDir, f), "utf8")) : undefined;
  });
  expect(alive(record.pid)).toBe(true);

  // Without the death-watch guard (src/process/watchdog.ts), nothing is cleaned up after a SIGKILL: an orphan.
  const guard = guardOf(server.pid);
  expect(guard).toBeGreaterThan(0);
  process.kill(guard!, "SIGKILL");
  server.kill("SIGKILL");
  await server.exited;
  await Bun.sleep(200);
  expect(alive(record.pid)).toBe(true);
  expect(alive(childPid)).toBe(true);

  const ps = Bun.spawnSync([requireBinary(), "agents", "ps", "--all", "--json"], { env });
  expect(ps.exitCode).toBe(0);
  expect(ps.stdout.toString()).toContain(record.handle);
  expect(ps.stdout.toString()).toContain("orphan");

  // The next server reconciles at start-up and stops the orphan's group and tagged processes.
  const next = Bun.spawn([requireBinary(), "server", "--stdio"], { cwd: workspace, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  next.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } })}\n`);
  next.stdin.flush();
  await until("the orphan to be stopped", () => (!alive(record.pid) && !alive(childPid) && !existsSync(join(recordsDir, recordFile)) ? true : undefined), 10_000);
  next.stdin.end();
  expect(await next.exited).toBe(0);
}, 40_000);
