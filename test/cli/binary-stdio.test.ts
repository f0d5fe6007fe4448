// The protocol spoken to the compiled `dist/scv server --stdio` over its real stdin/stdout.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { startStdioServer as startServer } from "../fake/stdio-client";

const fake = fakeModelForFile();

test("a full turn with a tool call, protocol errors in between, and a clean exit on EOF", async () => {
  const { env, workspace } = fakeHome(fake.url);
  writeFileSync(join(workspace, "hello.txt"), "hello from the workspace\n");
  fake.queue(toolCalls([{ name: "read", arguments: { path: "hello.txt" } }]), text("The file greets you."));
  const s = startServer(env, workspace);

  s.send("this is not json\n");
  expect((await s.waitFor((m) => m.error?.code === -32700)).id).toBeNull();
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 2 } });
  expect((await s.waitFor((m) => m.id === 1)).error.code).toBe(-32001);
  s.send({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocol_version: 3 } });
  expect((await s.waitFor((m) => m.id === 2)).result.protocol_version).toBe(3);
  s.send({ jsonrpc: "2.0", id: 3, method: "bogus.method", params: {} });
  expect((await s.waitFor((m) => m.id === 3)).error.code).toBe(-32601);
  s.send({ jsonrpc: "2.0", id: 4, method: "session.start", params: { cwd: workspace } });
  const started = (await s.waitFor((m) => m.id === 4)).result;
  expect(started.tools).toContain("read");
  s.send({ jsonrpc: "2.0", id: 5, method: "turn.start", params: { session_id: started.session_id, prompt: "read hello.txt" } });
  const ended = await s.waitFor((m) => m.method === "turn.ended");
  expect(ended.params).toMatchObject({ status: "completed", reply: "The file greets you." });
  const completed = s.messages.find((m) => m.method === "tool.completed");
  expect(completed.params.output).toContain("hello from the workspace");

  s.proc.stdin.end();
  const code = await Promise.race([s.proc.exited, Bun.sleep(20_000).then(() => "hung")]);
  expect(code).toBe(0);
}, 30_000);

test("the server is a subreaper: a bash escapee with a cleared environment in its own session is stopped", async () => {
  // Unsandboxed: a sandboxed command's PID namespace would end the escapee before the subreaper is asked to.
  const { env, workspace } = fakeHome(fake.url, '[sandbox]\nmode = "off"\n');
  const command = "env -i setsid sleep 300 >/dev/null 2>&1 & echo $!; sleep 0.3";
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("done"));
  const s = startServer(env, workspace);
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } });
  s.send({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: workspace, auto_approve: true } });
  const started = (await s.waitFor((m) => m.id === 2)).result;
  s.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: started.session_id, prompt: "go" } });
  await s.waitFor((m) => m.method === "turn.ended");
  const completed = s.messages.find((m) => m.method === "tool.completed");
  const pid = Number(/^(\d+)$/m.exec(completed.params.output)?.[1]);
  expect(pid).toBeGreaterThan(0);
  const alive = existsSync(`/proc/${pid}`) && !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  if (alive) process.kill(pid, "SIGKILL");
  s.proc.stdin.end();
  await s.proc.exited;
  expect(alive).toBe(false);
}, 30_000);

test("an oversized line gets an error and the server keeps serving", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const s = startServer(env, workspace);
  const big = `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"pad":"${"x".repeat(17 * 1024 * 1024)}"}}\n`;
  s.send(big);
  const err = await s.waitFor((m) => m.error && m.id === null, 20_000);
  expect(err.error.message).toContain("exceeds");
  s.send({ jsonrpc: "2.0", id: 10, method: "initialize", params: { protocol_version: 3 } });
  expect((await s.waitFor((m) => m.id === 10)).result.server.name).toBe("scv");
  s.proc.stdin.end();
  expect(await s.proc.exited).toBe(0);
}, 30_000);

test("EOF during a running turn cancels it and the server exits", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const { hang } = await import("../fake/model-server");
  fake.queue(hang("thinking "));
  const s = startServer(env, workspace);
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } });
  s.send({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: workspace } });
  const sid = (await s.waitFor((m) => m.id === 2)).result.session_id;
  s.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: sid, prompt: "hang" } });
  await s.waitFor((m) => m.method === "assistant.delta");
  s.proc.stdin.end();
  const code = await Promise.race([s.proc.exited, Bun.sleep(20_000).then(() => "hung")]);
  expect(code).toBe(0);
  expect(s.messages.find((m) => m.method === "turn.ended")?.params.status).toBe("cancelled");
}, 30_000);

test("a bad config file stops the server from starting, naming the file and key", async () => {
  const { env, workspace, home } = fakeHome(fake.url, `[tools]\nbogus_key = 1\n`);
  const proc = Bun.spawn([requireBinary(), "server", "--stdio"], { cwd: workspace, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  expect(await proc.exited).toBe(78);
  const err = await new Response(proc.stderr).text();
  expect(err).toContain(join(home, "config.toml"));
  expect(err).toContain("tools.bogus_key");
});

test("session.start starts connecting to the model endpoint before the first prompt", async () => {
  let accepted = 0;
  const endpoint = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: () => void accepted++, data() {} } });
  try {
    const { env, workspace } = fakeHome(`http://127.0.0.1:${endpoint.port}/v1`, 'api_key = "k"\n');
    const s = startServer(env, workspace);
    await s.request(1, "initialize", { protocol_version: 3 });
    await s.request(2, "session.start", { cwd: workspace });
    const deadline = Date.now() + 3000;
    while (accepted === 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(accepted).toBeGreaterThan(0);
    await s.kill();
  } finally {
    endpoint.stop(true);
  }
});
