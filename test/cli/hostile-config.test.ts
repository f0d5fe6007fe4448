// Config files a user or a workspace can place: a FIFO or a link to /dev/zero fails fast with an error naming
// the file, and in `server --stdio` one workspace's bad file never blocks another session. Compiled binary.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text } from "../fake/model-server";
import { type StdioServer, startStdioServer } from "../fake/stdio-client";

let fake: FakeModel;
const servers: StdioServer[] = [];
beforeAll(async () => {
  fake = await startFakeModel();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
});
afterAll(async () => {
  await fake.close();
  removeFakeHomes();
});

function home() {
  const h = fakeHome(fake.url);
  return h;
}

function mkfifo(path: string) {
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
}

/** `scv exec` with a deadline far above "fast": a hang fails the test instead of stalling it. */
async function exec(args: string[], env: Record<string, string>, cwd: string) {
  const started = performance.now();
  const proc = Bun.spawn([requireBinary(), "exec", ...args], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  const [code, stderr] = [await proc.exited, await new Response(proc.stderr).text()];
  clearTimeout(timer);
  return { code, stderr, ms: performance.now() - started, signal: proc.signalCode };
}

test("a FIFO as $SCV_HOME/config.toml: scv exec fails at once with exit 78, naming the file", async () => {
  const { env, workspace, home: scvHome } = home();
  rmSync(join(scvHome, "config.toml"));
  mkfifo(join(scvHome, "config.toml"));
  const r = await exec(["hi"], env, workspace);
  expect(r.signal).toBeNull();
  expect(r.code).toBe(78);
  expect(r.stderr).toContain(`config file ${join(scvHome, "config.toml")} is a FIFO (named pipe), not a regular file`);
  expect(r.ms).toBeLessThan(20_000); // refused, not blocked on the FIFO or reading /dev/zero forever (bound for a busy machine)
});

test("a workspace .scv/config.toml linked to /dev/zero: scv exec fails at once, without growing", async () => {
  const { env, workspace } = home();
  mkdirSync(join(workspace, ".scv"));
  symlinkSync("/dev/zero", join(workspace, ".scv", "config.toml"));
  const r = await exec(["hi"], env, workspace);
  expect(r.code).toBe(78);
  expect(r.stderr).toContain(`config file ${join(workspace, ".scv", "config.toml")} is a character device, not a regular file`);
  expect(r.ms).toBeLessThan(20_000); // refused, not blocked on the FIFO or reading /dev/zero forever (bound for a busy machine)
});

test("server --stdio: FIFO and /dev/zero workspace configs are refused at once while another session keeps answering", async () => {
  const { env, workspace } = home();
  const fifoWs = join(dirname(workspace), "fifo-ws");
  const zeroWs = join(dirname(workspace), "zero-ws");
  for (const ws of [fifoWs, zeroWs]) mkdirSync(join(ws, ".scv"), { recursive: true });
  mkfifo(join(fifoWs, ".scv", "config.toml"));
  symlinkSync("/dev/zero", join(zeroWs, ".scv", "config.toml"));

  const server = startStdioServer(env, workspace);
  servers.push(server);
  expect((await server.request(1, "initialize", { protocol_version: 3 })).result).toBeDefined();
  const good = (await server.request(2, "session.start", { cwd: workspace })).result.session_id;
  const fifo = await server.request(3, "session.start", { cwd: fifoWs }, 3000);
  expect(fifo.error.code).toBe(-32004);
  expect(fifo.error.message).toContain(`config file ${join(fifoWs, ".scv", "config.toml")} is a FIFO (named pipe)`);
  const zero = await server.request(4, "session.start", { cwd: zeroWs }, 3000);
  expect(zero.error.code).toBe(-32004);
  expect(zero.error.message).toContain("is a character device, not a regular file");

  fake.queue(text("still answering"));
  server.send({ jsonrpc: "2.0", id: 5, method: "turn.start", params: { session_id: good, prompt: "hi" } });
  const ended = await server.waitFor((m) => m.method === "turn.ended", 20_000);
  expect(ended.params.reply).toBe("still answering");
});

test("config.toml that is a directory, or that defines a key twice, is refused with a clear message", async () => {
  const { env, workspace, home: scvHome } = home();
  rmSync(join(scvHome, "config.toml"));
  mkdirSync(join(scvHome, "config.toml"));
  let r = await exec(["hi"], env, workspace);
  expect(r.code).toBe(78);
  expect(r.stderr).toContain(`config file ${join(scvHome, "config.toml")} is a directory, not a regular file`);
  expect(r.stderr).not.toMatch(/line \d+/);

  rmSync(join(scvHome, "config.toml"), { recursive: true });
  await Bun.write(join(scvHome, "config.toml"), `[tools]\ncommand_timeout_seconds = 5\ncommand_timeout_seconds = 6\n`);
  r = await exec(["hi"], env, workspace);
  expect(r.code).toBe(78);
  expect(r.stderr).toContain("key tools.command_timeout_seconds is defined twice at line 3");
});
