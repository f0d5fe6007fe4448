// MCP servers through the compiled binary, driven by the scripted model: the real reference servers from npm
// (server-everything over stdio and streamable HTTP, server-filesystem) and the hostile stand-in.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { alive, everythingStdio, FILESYSTEM, freePort, hostile, JS_RUNTIME, serverToml, startEverythingHttp } from "../fake/mcp-servers";
import { startStdioServer, type StdioServer } from "../fake/stdio-client";

const fake = fakeModelForFile();
setDefaultTimeout(30_000); // each test runs the binary and real servers, on a machine that may be busy
const SECRET = "s3cr3t-value-for-mcp-7781";

function events(stdout: string): any[] {
  return stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}
const completed = (evs: any[]) => evs.filter((e) => e.method === "tool.completed").map((e) => e.params);
const offered = (request: any): string[] => (request?.body?.tools ?? []).map((t: any) => t.name ?? t.function?.name);

async function waitUntil(check: () => boolean, ms = 25_000, what = "the condition"): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

describe("stdio, server-everything", () => {
  test("tools are offered as <server>__<tool>; a call runs and its result reaches the model; only named variables pass, secrets scrubbed", async () => {
    const { env, workspace } = fakeHome(fake.url, serverToml("everything", everythingStdio({ env: { SECRET_TOKEN: SECRET } })));
    fake.queue(toolCalls([{ name: "everything__echo", arguments: { message: "hello mcp" } }, { name: "everything__get-env", arguments: {} }]), text("done"));
    const before = fake.requests.length;
    const r = await runBinary(["exec", "--json", "--yes", "use mcp"], { ...env, MY_PRIVATE_VAR: "must-not-pass" }, workspace);
    expect(r.code).toBe(0);
    const names = offered(fake.requests[before]);
    expect(names).toContain("everything__echo");
    expect(names).toContain("everything__get-env");
    expect(names).toContain("read"); // the built-ins stay
    const [echo, envOut] = completed(events(r.stdout));
    expect(echo).toMatchObject({ tool: "everything__echo", ok: true, output: "Echo: hello mcp" });
    expect(envOut.ok).toBe(true);
    expect(envOut.output).toContain("SECRET_TOKEN");
    expect(envOut.output).toContain("<redacted:SECRET_TOKEN>");
    expect(envOut.output).not.toContain(SECRET);
    expect(envOut.output).not.toContain("MY_PRIVATE_VAR");
    expect(envOut.output).not.toContain("SCV_HOME");
    expect(envOut.output).toContain("PATH");
    // What the model read is the same scrubbed text.
    expect(JSON.stringify(fake.requests.at(-1)!.body)).not.toContain(SECRET);
  });

  test("without --yes and no terminal, connecting is denied: no MCP tool is offered, the notice says why, the turn goes on", async () => {
    const { env, workspace } = fakeHome(fake.url, serverToml("everything", everythingStdio()));
    fake.queue(text("fine without"));
    const before = fake.requests.length;
    const r = await runBinary(["exec", "hi"], env, workspace);
    expect(r.code).toBe(4); // exec off a terminal: something was denied for want of someone to ask
    expect(r.stdout).toBe("fine without\n");
    expect(offered(fake.requests[before]).some((n) => n.startsWith("everything__"))).toBe(false);
    expect(r.stderr).toContain('MCP server "everything" is not connected');
  });
});

test("stdio, server-filesystem: reads a workspace file", async () => {
  const { env, workspace } = fakeHome(fake.url);
  writeFileSync(join(workspace, "notes.txt"), "the filesystem server read this");
  writeFileSync(join(env.SCV_HOME!, "config.toml"), readFileSync(join(env.SCV_HOME!, "config.toml"), "utf8") + serverToml("fs", { command: JS_RUNTIME, args: [FILESYSTEM, workspace] }));
  fake.queue(toolCalls([{ name: "fs__read_text_file", arguments: { path: join(workspace, "notes.txt") } }]), text("read it"));
  const r = await runBinary(["exec", "--json", "--yes", "read notes"], env, workspace);
  expect(r.code).toBe(0);
  expect(completed(events(r.stdout))[0]).toMatchObject({ tool: "fs__read_text_file", ok: true, output: "the filesystem server read this" });
});

describe("streamable HTTP, server-everything on 127.0.0.1", () => {
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    server = await startEverythingHttp(await freePort());
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("with allow_private_addresses the loopback server's tools are offered and called", async () => {
    const { env, workspace } = fakeHome(fake.url, serverToml("web", { url: server.url, allow_private_addresses: true }));
    fake.queue(toolCalls([{ name: "web__get-sum", arguments: { a: 2, b: 40 } }]), text("summed"));
    const r = await runBinary(["exec", "--json", "--yes", "sum"], env, workspace);
    expect(r.code).toBe(0);
    const [sum] = completed(events(r.stdout));
    expect(sum).toMatchObject({ tool: "web__get-sum", ok: true });
    expect(sum.output).toContain("42");
  });

  test("without it the loopback URL is refused by the web_fetch address policy, and the session goes on", async () => {
    const { env, workspace } = fakeHome(fake.url, serverToml("web", { url: server.url }));
    fake.queue(text("no tools"));
    const r = await runBinary(["exec", "--json", "--yes", "sum"], env, workspace);
    expect(r.code).toBe(0);
    const notices = events(r.stdout).filter((e) => e.method === "model.notice").map((e) => e.params.message);
    expect(notices.join("\n")).toMatch(/MCP server "web".*(private|loopback|127\.0\.0\.1)/);
  });
});

describe("the hostile stand-in: a clear error for that server, no process left", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["exit", {}, /exited with code 3 \(stderr: hostile: giving up at once\)/],
    ["silent", { startup_timeout_seconds: 1 }, /did not answer initialize within 1 s \(startup_timeout_seconds\)/],
    ["version", {}, /protocol version SCV does not support \(1999-01-01\)/],
    ["invalid", {}, /wrote a line that is not JSON-RPC on stdout/],
  ];
  for (const [mode, extra, message] of cases) {
    test(`${mode}`, async () => {
      const { env, workspace } = fakeHome(fake.url);
      const pidFile = join(workspace, "server.pid");
      writeFileSync(join(env.SCV_HOME!, "config.toml"), serverToml("bad", hostile(mode, { ...extra, args: ["--pid", pidFile] })));
      const r = await runBinary(["mcp", "test", "bad", "--yes"], env, workspace);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('MCP server "bad"');
      await waitUntil(() => existsSync(pidFile), 2000, "the pid file");
      expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
    });
  }

  test("a program that does not exist: the error names it and says it could not be started", async () => {
    const { env, workspace } = fakeHome(fake.url);
    writeFileSync(join(env.SCV_HOME!, "config.toml"), serverToml("gone", { command: join(workspace, "no-such-mcp-server") }));
    const r = await runBinary(["mcp", "test", "gone", "--yes"], env, workspace);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('MCP server "gone" could not be started');
    expect(r.stderr).toContain("no-such-mcp-server");
  });

  test("a server flooding notifications is disconnected with that reason; the turn goes on", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const pidFile = join(workspace, "server.pid");
    writeFileSync(join(env.SCV_HOME!, "config.toml"), readFileSync(join(env.SCV_HOME!, "config.toml"), "utf8") + serverToml("bad", hostile("flood", { args: ["--pid", pidFile] })));
    fake.queue(toolCalls([{ name: "bad__sleep", arguments: {} }]), text("went on"));
    const r = await runBinary(["exec", "--json", "--yes", "flood"], env, workspace);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('MCP server \\"bad\\" sent more than 5000 notifications in 5 s, so it was disconnected');
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  }, 30_000);

  test("a 100 MB result fails that call within mcp.max_message_bytes; the turn goes on", async () => {
    const { env, workspace } = fakeHome(fake.url, serverToml("bad", hostile("well")));
    fake.queue(toolCalls([{ name: "bad__huge", arguments: { mb: 100 } }]), text("went on"));
    const r = await runBinary(["exec", "--json", "--yes", "huge"], env, workspace);
    expect(r.code).toBe(0);
    const [huge] = completed(events(r.stdout));
    expect(huge.ok).toBe(false);
    expect(huge.output).toContain(`sent a message over ${16 * 1024 * 1024} bytes (mcp.max_message_bytes)`);
    expect(events(r.stdout).at(-1).params).toMatchObject({ status: "completed", reply: "went on" });
  }, 30_000);

  test("a call past tool_timeout_seconds is cancelled (notifications/cancelled) and the server stopped", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const log = join(workspace, "received.jsonl");
    const pidFile = join(workspace, "server.pid");
    writeFileSync(join(env.SCV_HOME!, "config.toml"), readFileSync(join(env.SCV_HOME!, "config.toml"), "utf8") + serverToml("slow", hostile("well", { tool_timeout_seconds: 1, args: ["--log", log, "--pid", pidFile] })));
    fake.queue(toolCalls([{ name: "slow__sleep", arguments: {} }]), text("gave up"));
    const r = await runBinary(["exec", "--json", "--yes", "sleep"], env, workspace);
    expect(r.code).toBe(0);
    expect(completed(events(r.stdout))[0].output).toContain("did not answer sleep within 1 s (tool_timeout_seconds)");
    const received = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const call = received.find((m) => m.method === "tools/call");
    expect(received.find((m) => m.method === "notifications/cancelled")?.params.requestId).toBe(call.id);
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });
});

describe("scv server --stdio: approvals, cancel, a server killed, SCV killed", () => {
  let server: StdioServer | undefined;
  beforeEach(() => fake.clear()); // a reply an earlier test left queued (its server killed first) is not this test's
  afterAll(async () => {
    await server?.kill();
  });

  async function open(env: Record<string, string>, workspace: string, autoApprove: boolean) {
    server = startStdioServer(env, workspace);
    await server.call("initialize", { protocol_version: 3 });
    const started = await server.call("session.start", { cwd: workspace, auto_approve: autoApprove });
    return started.result.session_id as string;
  }

  test("mcp.connect is asked before anything runs, names the command and variable names but no value; 'always' is kept for the workspace", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const pidFile = join(workspace, "server.pid");
    writeFileSync(join(env.SCV_HOME!, "config.toml"), readFileSync(join(env.SCV_HOME!, "config.toml"), "utf8") + serverToml("h", hostile("well", { env: { API_TOKEN: SECRET }, args: ["--pid", pidFile] })));
    fake.queue(toolCalls([{ name: "h__hello", arguments: { who: "you" } }]), text("greeted"));
    const sid = await open(env, workspace, false);
    await server!.call("turn.start", { session_id: sid, prompt: "greet" });
    const ask = await server!.waitFor((m) => m.method === "approval.requested");
    expect(ask.params.tool).toBe("mcp.connect:h");
    expect(ask.params.rememberable).toBe(true);
    expect(ask.params.summary).toContain(`$ ${process.execPath}`);
    expect(ask.params.summary).toContain("API_TOKEN");
    expect(ask.params.summary).not.toContain(SECRET);
    expect(existsSync(pidFile)).toBe(false); // nothing started before the answer
    await server!.call("approval.resolve", { session_id: sid, approval_id: ask.params.approval_id, approved: true, remember: "workspace" });
    const callAsk = await server!.waitFor((m) => m.method === "approval.requested" && m.params.tool === "h__hello");
    expect(callAsk.params.risk).toBe("process");
    expect(callAsk.params.summary).toContain('MCP server "h" tool "hello"');
    await server!.call("approval.resolve", { session_id: sid, approval_id: callAsk.params.approval_id, approved: true });
    const done = await server!.waitFor((m) => m.method === "tool.completed");
    expect(done.params.output).toBe("hello you");
    await server!.waitFor((m) => m.method === "turn.ended");
    await server!.call("session.close", { session_id: sid });
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false); // stopped with its session

    // A new session in the same workspace connects unasked; only the call is asked.
    fake.queue(toolCalls([{ name: "h__hello", arguments: {} }]), text("again"));
    const sid2 = (await server!.call("session.start", { cwd: workspace })).result.session_id;
    await server!.call("turn.start", { session_id: sid2, prompt: "again" });
    const next = await server!.waitFor((m) => m.method === "approval.requested" && m.params.session_id === sid2);
    expect(next.params.tool).toBe("h__hello");
    await server!.call("approval.resolve", { session_id: sid2, approval_id: next.params.approval_id, approved: false });
    await server!.waitFor((m) => m.method === "turn.ended" && m.params.session_id === sid2);
    await server!.kill();
  });

  test("cancelling the turn sends notifications/cancelled for the running call", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const log = join(workspace, "received.jsonl");
    writeFileSync(join(env.SCV_HOME!, "config.toml"), readFileSync(join(env.SCV_HOME!, "config.toml"), "utf8") + serverToml("h", hostile("well", { args: ["--log", log] })));
    fake.queue(toolCalls([{ name: "h__sleep", arguments: {} }]), text("unused"));
    const sid = await open(env, workspace, true);
    await server!.call("turn.start", { session_id: sid, prompt: "sleep" });
    await server!.waitFor((m) => m.method === "tool.started" && m.params.tool === "h__sleep");
    await waitUntil(() => existsSync(log) && readFileSync(log, "utf8").includes("tools/call"), 5000, "the call to reach the server");
    await server!.call("turn.cancel", { session_id: sid });
    const done = await server!.waitFor((m) => m.method === "tool.completed");
    expect(done.params.output).toContain("cancelled");
    await waitUntil(() => readFileSync(log, "utf8").includes("notifications/cancelled"), 5000, "notifications/cancelled");
    fake.clear();
    await server!.kill();
  });

  test("a server killed mid-call fails that call saying so; the next turn connects it again", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const pidFile = join(workspace, "server.pid");
    writeFileSync(join(env.SCV_HOME!, "config.toml"), readFileSync(join(env.SCV_HOME!, "config.toml"), "utf8") + serverToml("h", hostile("well", { args: ["--pid", pidFile] })));
    fake.queue(toolCalls([{ name: "h__sleep", arguments: {} }]), text("it died"));
    const sid = await open(env, workspace, true);
    await server!.call("turn.start", { session_id: sid, prompt: "sleep" });
    await server!.waitFor((m) => m.method === "tool.started" && m.params.tool === "h__sleep");
    const pid = Number(readFileSync(pidFile, "utf8"));
    process.kill(pid, "SIGKILL");
    const done = await server!.waitFor((m) => m.method === "tool.completed");
    expect(done.params.ok).toBe(false);
    expect(done.params.output).toContain('MCP server "h" was killed by SIGKILL');
    await server!.waitFor((m) => m.method === "turn.ended");
    fake.queue(toolCalls([{ name: "h__hello", arguments: {} }]), text("back"));
    await server!.call("turn.start", { session_id: sid, prompt: "again" });
    const again = await server!.waitFor((m) => m.method === "tool.completed" && m.params.call_id !== done.params.call_id);
    expect(again.params.output).toBe("hello world");
    expect(Number(readFileSync(pidFile, "utf8"))).not.toBe(pid);
    await server!.waitFor((m) => m.method === "turn.ended" && m.params.turn_id !== done.params.turn_id);
    await server!.kill();
  });

  test("a running server is listed by scv agents ps (kind mcp); after SCV is SIGKILLed the next start reaps it", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const pidFile = join(workspace, "server.pid");
    // A server that outlives its client's EOF: only SCV's records can stop it once SCV is gone.
    writeFileSync(join(env.SCV_HOME!, "config.toml"), readFileSync(join(env.SCV_HOME!, "config.toml"), "utf8") + serverToml("h", hostile("well", { args: ["--pid", pidFile, "--ignore-eof"] })));
    fake.queue(toolCalls([{ name: "h__sleep", arguments: {} }]));
    const sid = await open(env, workspace, true);
    await server!.call("turn.start", { session_id: sid, prompt: "sleep" });
    await server!.waitFor((m) => m.method === "tool.started" && m.params.tool === "h__sleep");
    const pid = Number(readFileSync(pidFile, "utf8"));
    const ps = await runBinary(["agents", "ps", "--json"], env, workspace);
    const row = JSON.parse(ps.stdout).delegations.find((d: any) => d.pid === pid);
    expect(row).toMatchObject({ kind: "mcp", agent: "h", session: sid, state: "running" });
    const table = await runBinary(["agents", "ps"], env, workspace);
    expect(table.stdout).toContain("mcp:h");
    await server!.kill(); // SIGKILL: nothing of SCV runs its cleanup
    expect(alive(pid)).toBe(true);
    fake.queue(text("hello"));
    const next = await runBinary(["exec", "hi"], env, workspace);
    expect(next.stdout).toBe("hello\n"); // its connect is denied (no terminal, no --yes): exit 4, beside the point here
    await waitUntil(() => !alive(pid), 10_000, "the orphaned server to be reaped");
  });
});
