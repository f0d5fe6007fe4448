// The compiled binary's own command line: --version, --help, unknown commands and `config show`.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, runBinary } from "../fake/binary";

afterAll(removeFakeHomes);

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

function run(args: string[], env: Record<string, string>, cwd: string) {
  const r = runBinary(args, env, cwd);
  return { code: r.code, stdout: plain(r.stdout), stderr: plain(r.stderr) };
}

test("--version prints the stamped version; --help lists the commands", () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  const v = run(["--version"], env, workspace);
  expect(v.code).toBe(0);
  expect(v.stdout).toMatch(/^scv \d+\.\d+\.\d+\S*\n$/);
  const help = run(["--help"], env, workspace);
  expect(help.code).toBe(0);
  for (const cmd of ["exec", "server", "config"]) expect(help.stdout).toContain(cmd);
  const execHelp = run(["exec", "--help"], env, workspace);
  for (const flag of ["--cwd", "--json", "--yes", "--provider", "--model", "PROMPT"]) expect(execHelp.stdout).toContain(flag);
});

test("scv help [COMMAND], -V, and usage errors at every level exit 2", () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  expect(run(["-V"], env, workspace).stdout).toMatch(/^scv \d+\.\d+\.\d+/);
  const help = run(["help", "exec"], env, workspace);
  expect(help.code).toBe(0);
  for (const text of ["-m, --model MODEL", "-C, --cwd DIR", "-y, --yes", "-o, --output-last-message FILE", "-p, --provider NAME", "Exit codes:", "130  interrupted"]) {
    expect(help.stdout).toContain(text);
  }
  expect(run(["help", "daemon", "status"], env, workspace).stdout).toContain("exit 3 when it does not");
  for (const [args, message] of [
    [["help", "frob"], 'scv: unknown command "frob" (commands: tui, exec, server, config, agents, daemon, status, skills, sessions, channels)'],
    [["daemon"], "scv daemon: a command is required"],
    [["daemon", "stop", "--frobnicate"], 'scv daemon stop: unknown option "--frobnicate"'],
    [["status", "extra"], 'scv status: unexpected argument "extra"'],
    [["config", "show", "--cwd"], "scv config show: option --cwd needs a value"],
  ] as const) {
    const r = run([...args], env, workspace);
    expect([r.code, r.stderr.split("\n")[0]]).toEqual([2, message]);
    expect(r.stderr).toContain("Usage: scv");
  }
});

test("an unknown command fails and says so", () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  const r = run(["frobnicate"], env, workspace);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('scv: unknown command "frobnicate"');
  expect(r.stderr).toContain("Usage: scv [options] COMMAND");
});

test("config show: sources from the user and project files; secrets only as set/unset", () => {
  const secret = "sk-bin-secret-0123456789";
  const { env, workspace, home } = fakeHome("http://127.0.0.1:9/v1", `api_key = "${secret}"\nproxy = "http://bob:proxy-pw@127.0.0.1:3128"\n`);
  mkdirSync(join(workspace, ".scv"));
  writeFileSync(join(workspace, ".scv", "config.toml"), "[tools]\ncommand_timeout_seconds = 42\n");
  const r = run(["config", "show"], { ...env, OPENAI_API_KEY: "sk-env-secret-999999" }, workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`tools.command_timeout_seconds = 42  # ${join(workspace, ".scv", "config.toml")}`);
  expect(r.stdout).toContain(`providers.fake.api_key = "set"  # ${join(home, "config.toml")}`);
  for (const s of [secret, "proxy-pw", "sk-env-secret"]) expect(r.stdout + r.stderr).not.toContain(s);
});

test("config show refuses a bad file with its path and key, exit 78", () => {
  const { env, workspace, home } = fakeHome("http://127.0.0.1:9/v1", "[tools]\noutput_limit_bytes = 10\n");
  const r = run(["config", "show"], env, workspace);
  expect(r.code).toBe(78);
  expect(r.stderr).toContain(`${join(home, "config.toml")}: tools.output_limit_bytes: must be at least 1024`);
});
