// The compiled binary's own command line: --version, --help, unknown commands and `config show`.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, runBinary } from "../fake/binary";

afterAll(removeFakeHomes);

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

async function run(args: string[], env: Record<string, string>, cwd: string) {
  const r = await runBinary(args, env, cwd);
  return { code: r.code, stdout: plain(r.stdout), stderr: plain(r.stderr) };
}

test("--version prints the stamped version; --help lists the commands", async () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  const v = await run(["--version"], env, workspace);
  expect(v.code).toBe(0);
  expect(v.stdout).toMatch(/^scv \d+\.\d+\.\d+\S*\n$/);
  const help = await run(["--help"], env, workspace);
  expect(help.code).toBe(0);
  for (const cmd of ["exec", "server", "config"]) expect(help.stdout).toContain(cmd);
  const execHelp = await run(["exec", "--help"], env, workspace);
  for (const flag of ["--cwd", "--json", "--yes", "--provider", "--model", "PROMPT"]) expect(execHelp.stdout).toContain(flag);
});

test("scv help [COMMAND], -V, and usage errors at every level exit 2", async () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  expect((await run(["-V"], env, workspace)).stdout).toMatch(/^scv \d+\.\d+\.\d+/);
  const help = await run(["help", "exec"], env, workspace);
  expect(help.code).toBe(0);
  for (const text of ["-m, --model MODEL", "-C, --cwd DIR", "-y, --yes", "-o, --output-last-message FILE", "-p, --provider NAME", "Exit codes:", "130  interrupted"]) {
    expect(help.stdout).toContain(text);
  }
  expect((await run(["help", "daemon", "status"], env, workspace)).stdout).toContain("exit 3 when it does not");
  expect((await run(["acp", "--help"], env, workspace)).stdout).toContain("Agent Client Protocol");
  for (const [args, message] of [
    [["help", "frob"], 'scv: unknown command "frob" (commands: tui, exec, server, acp, config, agents, daemon, status, doctor, skills, sessions, memory, channels, rules, hooks, commands, import, usage, mcp, schedules, web, sandbox)'],
    [["daemon"], "scv daemon: a command is required"],
    [["daemon", "stop", "--frobnicate"], 'scv daemon stop: unknown option "--frobnicate"'],
    [["status", "extra"], 'scv status: unexpected argument "extra"'],
    [["acp", "--stdio"], 'scv acp: unknown option "--stdio"'],
    [["config", "show", "--cwd"], "scv config show: option --cwd needs a value"],
  ] as const) {
    const r = await run([...args], env, workspace);
    expect([r.code, r.stderr.split("\n")[0]]).toEqual([2, message]);
    expect(r.stderr).toContain("Usage: scv");
  }
});

test("an unknown command fails and says so", async () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  const r = await run(["frobnicate"], env, workspace);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('scv: unknown command "frobnicate"');
  expect(r.stderr).toContain("Usage: scv [options] COMMAND");
});

test("config show: sources from the user and project files; secrets only as set/unset", async () => {
  const secret = "sk-bin-secret-0123456789";
  const { env, workspace, home } = fakeHome("http://127.0.0.1:9/v1", `api_key = "${secret}"\nproxy = "http://bob:proxy-pw@127.0.0.1:3128"\n`);
  mkdirSync(join(workspace, ".scv"));
  writeFileSync(join(workspace, ".scv", "config.toml"), "[tools]\ncommand_timeout_seconds = 42\n");
  const r = await run(["config", "show"], { ...env, OPENAI_API_KEY: "sk-env-secret-999999" }, workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`tools.command_timeout_seconds = 42  # ${join(workspace, ".scv", "config.toml")}`);
  expect(r.stdout).toContain(`providers.fake.api_key = "set"  # ${join(home, "config.toml")}`);
  for (const s of [secret, "proxy-pw", "sk-env-secret"]) expect(r.stdout + r.stderr).not.toContain(s);
});

test("config show refuses a bad file with its path and key, exit 78", async () => {
  const { env, workspace, home } = fakeHome("http://127.0.0.1:9/v1", "[tools]\noutput_limit_bytes = 10\n");
  const r = await run(["config", "show"], env, workspace);
  expect(r.code).toBe(78);
  expect(r.stderr).toContain(`${join(home, "config.toml")}: tools.output_limit_bytes: must be at least 1024`);
});
