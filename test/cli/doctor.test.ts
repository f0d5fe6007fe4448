// `scv doctor` through the compiled binary: a healthy home, a broken config, a dead endpoint, a stopped daemon
// with a channel configured, and a refused key that is never printed. Every endpoint is on 127.0.0.1.
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary, runBinary } from "../fake/binary";

const fake = fakeModelForFile();
/** No agent CLI on PATH, so the agent lines do not depend on this machine. */
const bare = (env: Record<string, string>) => ({ ...env, PATH: "/nonexistent-bin" });

test("a healthy home: every line ok or a warning, exit 0; --json says the same", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const r = await runBinary(["doctor"], bare(env), workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^ok +binary: scv /m);
  expect(r.stdout).toMatch(/^ok +config: user file /m);
  expect(r.stdout).toMatch(/^ok +provider: "fake" \(responses API, model fake-model, 127\.0\.0\.1:\d+\): no key configured/m);
  expect(r.stdout).toMatch(/^ok +provider: GET \/models answered HTTP 404 in \d+ ms: reachable/m);
  expect(r.stdout).toMatch(/^ok +daemon: not running \(no chat channels are configured\)/m);
  expect(r.stdout).not.toContain("problem ");
  expect(fake.requests.filter((q) => q.path.endsWith("/models"))).toHaveLength(1); // one request per endpoint
  const j = await runBinary(["doctor", "--json"], bare(env), workspace);
  const report = JSON.parse(j.stdout);
  expect(report.problems).toBe(0);
  expect(report.lines.find((l: any) => l.area === "storage").text).toContain("stored sessions");
}, 30_000);

test("a broken config is a problem naming the key, and the exit is 1", async () => {
  const { env, workspace } = fakeHome(fake.url, "[tools]\ncomand_timeout_seconds = 5\n");
  const r = await runBinary(["doctor"], bare(env), workspace);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^problem +config: .*tools\.comand_timeout_seconds \(did you mean `command_timeout_seconds`\?\)/m);
}, 30_000);

test("a dead endpoint and a stopped daemon with a channel configured are problems with their fixes", async () => {
  const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const deadUrl = `http://127.0.0.1:${dead.port}/v1`;
  dead.stop(true);
  const { env, workspace, home } = fakeHome(deadUrl);
  mkdirSync(join(home, "chat"));
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${deadUrl}"\nmodel = "m"\n[channels]\nworkspace = "${workspace}"\n[channels.dir]\npath = "${join(home, "chat")}"\nowner = "me"\n`);
  const r = await runBinary(["doctor"], bare(env), workspace);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^problem +provider: 127\.0\.0\.1:\d+ is not reachable/m);
  expect(r.stdout).toMatch(/^problem +daemon: not running, so the configured channels \(dir\) answer nobody/m);
  expect(r.stdout).toContain("fix: `scv daemon start`");
}, 30_000);

test("a refused key is a problem, and neither the key nor its echo is printed", async () => {
  const key = "sk-doctor-SECRET-4242";
  let sent = "";
  // GET /models answering 401 with the key echoed, as OpenAI's does.
  const refusing = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      sent = req.headers.get("authorization") ?? "";
      return Response.json({ error: { message: `Incorrect API key provided: ${key}`, code: "invalid_api_key" } }, { status: 401 });
    },
  });
  try {
    const { env, workspace } = fakeHome(`http://127.0.0.1:${refusing.port}/v1`, `api_key_env = "DOCTOR_KEY"\n`);
    const r = await runBinary(["doctor", "--json"], { ...bare(env), DOCTOR_KEY: key }, workspace);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("the key was refused");
    expect(r.stdout + r.stderr).not.toContain("SECRET");
    expect(sent).toBe(`Bearer ${key}`);
  } finally {
    refusing.stop(true);
  }
}, 30_000);

test("schedules that nothing will fire are a problem; configured MCP servers are listed, none started", async () => {
  const { env, workspace } = fakeHome(fake.url, `[mcp.servers.files]\ncommand = "/nonexistent/mcp-files"\n[mcp.servers.remote]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env = "REMOTE_TOKEN"\n`);
  const add = await runBinary(["schedules", "add", "--every", "1h", "check the build"], bare(env), workspace);
  expect(add.code).toBe(0);
  const r = await runBinary(["doctor"], bare(env), workspace);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^problem +schedules: 1 active, 0 paused; next sch-[0-9a-f]+ .*the daemon is not running, so none will fire/m);
  expect(r.stdout).toMatch(/^problem +mcp files: runs mcp-files, but it cannot be run: \/nonexistent\/mcp-files does not exist\n +fix: install it, or set command under \[mcp\.servers\.files\] to the program's full path/m);
  expect(r.stdout).toMatch(/^warning +mcp remote: reaches 127\.0\.0\.1:9, but REMOTE_TOKEN \(bearer_token_env\) is not set/m);
}, 30_000);

test("each stdio MCP server's program is found and checked runnable, its #! interpreter too, without starting it", async () => {
  const { env, workspace, home } = fakeHome(fake.url);
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "mcp-ok"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  writeFileSync(join(bin, "mcp-noexec"), "#!/bin/sh\nexit 0\n", { mode: 0o644 });
  writeFileSync(join(bin, "mcp-node"), "#!/usr/bin/env scv-test-no-such-runtime\nconsole.log(1)\n", { mode: 0o755 });
  writeFileSync(join(bin, "started"), "");
  const servers = ["ok", "noexec", "node"].map((n) => `[mcp.servers.${n}]\ncommand = "mcp-${n}"\n`).join("") + `[mcp.servers.absent]\ncommand = "scv-test-not-installed"\n[mcp.servers.novar]\ncommand = "mcp-ok"\nenv = ["SCV_TEST_UNSET_VAR"]\n`;
  writeFileSync(join(home, "config.toml"), `${require("node:fs").readFileSync(join(home, "config.toml"), "utf8")}${servers}`);
  const r = await runBinary(["doctor"], { ...bare(env), PATH: `${bin}:${env.PATH}` }, workspace);
  expect(r.stdout).toMatch(/^ok +mcp ok: runs mcp-ok; `scv mcp test ok` connects/m);
  expect(r.stdout).toMatch(/^problem +mcp noexec: runs mcp-noexec, but it cannot be run: .*mcp-noexec is not executable/m);
  expect(r.stdout).toMatch(/^problem +mcp node: runs mcp-node, but it cannot be run: .*mcp-node runs through scv-test-no-such-runtime \(its #! line\), which is not found/m);
  expect(r.stdout).toMatch(/^problem +mcp absent: runs scv-test-not-installed, but it cannot be run: scv-test-not-installed is not found on the PATH/m);
  expect(r.stdout).toMatch(/^warning +mcp novar: runs mcp-ok, but SCV_TEST_UNSET_VAR is not set/m);
}, 30_000);

test("a nested SCV nobody set up is not 'signed out'; once its home exists, it is (issue 56)", async () => {
  const { env, workspace, home } = fakeHome(fake.url);
  const bin = join(home, "..", "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(requireBinary(), join(bin, "scv"));
  const r = await runBinary(["doctor"], { ...env, PATH: bin }, workspace);
  expect(r.stdout).toMatch(/^ok +agent scv: SCV: not set up \(`scv agents login scv`/m);
  expect(r.stdout).not.toContain("signed out");
  mkdirSync(join(home, "agents", "scv"), { recursive: true });
  const used = await runBinary(["doctor"], { ...env, PATH: bin }, workspace);
  expect(used.stdout).toMatch(/^warning +agent scv: SCV: signed out/m);
}, 30_000);
