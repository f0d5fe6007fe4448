// Working in the home directory with the default SCV_HOME (~/.scv): `~/.scv/config.toml` is the user file, and
// the project layer of a session opened in `~` would be the same file. Every entry point that loads config
// must read it once, as the user's: exec, config show, server --stdio, the TUI, and the daemon's chat sessions
// (whose workspace defaults to the home directory).
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeModelForFile, requireBinary, runBinary } from "../fake/binary";
import { text } from "../fake/model-server";
import { startStdioServer } from "../fake/stdio-client";
import { closeAllTerminals, openTerminal } from "../fake/tmux";
import { cleanupBridges, killDaemon, sendMessage, startDaemon, waitForOut, type Bridge } from "../channels/helpers";
import { needs } from "../fake/needs";

const fake = fakeModelForFile();
const roots: string[] = [];
afterEach(async () => {
  closeAllTerminals();
  await cleanupBridges();
  fake.clear();
});
afterAll(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A home directory whose ~/.scv/config.toml sets the provider (a user-only key), SCV_HOME left unset. */
function homeWithDefaultScvHome(extra = "") {
  const root = mkdtempSync(join(tmpdir(), "scv-homedir-"));
  roots.push(root);
  const home = join(root, "home");
  mkdirSync(join(home, ".scv"), { recursive: true });
  writeFileSync(
    join(home, ".scv", "config.toml"),
    `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n${extra}`,
  );
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home };
  return { root, home, env };
}

describe("in the home directory, ~/.scv/config.toml is read once, as the user file", () => {
  test("scv exec", async () => {
    const { home, env } = homeWithDefaultScvHome();
    fake.queue(text("hello from home"));
    const r = await runBinary(["exec", "hi"], env, home);
    expect(r.stderr).not.toContain("a project file cannot set");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("hello from home");
  }, 30_000);

  test("scv config show names no project layer", async () => {
    const { home, env } = homeWithDefaultScvHome();
    const r = await runBinary(["config", "show"], env, home);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("fake-model");
  }, 30_000);

  test("scv server --stdio: session.start in the home directory", async () => {
    const { home, env } = homeWithDefaultScvHome();
    fake.queue(text("served"));
    const s = startStdioServer(env, home);
    s.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } });
    s.send({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: home } });
    const started = await s.waitFor((m) => m.id === 2);
    expect(started.error).toBeUndefined();
    s.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: started.result.session_id, prompt: "hi" } });
    expect((await s.waitFor((m) => m.method === "turn.ended")).params).toMatchObject({ status: "completed", reply: "served" });
    s.proc.stdin.end();
    await s.proc.exited;
  }, 30_000);

  test.skipIf(!needs("tmux"))("scv in a terminal", async () => {
    const { home, env } = homeWithDefaultScvHome();
    fake.queue(text("terminal reply"));
    const pane = openTerminal([requireBinary()], { env, cwd: home });
    await pane.waitFor(/s-[0-9a-f]{8}/);
    pane.type("hello");
    pane.keys("Enter");
    await pane.waitFor("terminal reply");
    expect(pane.screen()).not.toContain("cannot set");
    pane.keys("C-d");
    expect(await pane.exitCode()).toBe(0);
  }, 30_000);

  test("a chat channel whose workspace is the default (the home directory) answers messages", async () => {
    const { root, home, env } = homeWithDefaultScvHome();
    const chat = join(root, "chat");
    mkdirSync(chat);
    // channels.workspace is not set: it defaults to the home directory.
    writeFileSync(
      join(home, ".scv", "config.toml"),
      `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n[channels.dir]\npath = "${chat}"\nowner = "owner-1"\n`,
    );
    let log = "";
    const b: Bridge = { root, home: join(home, ".scv"), workspace: home, chat, env, logText: () => log };
    (b as { appendLog?: (s: string) => void }).appendLog = (s) => (log += s);
    fake.queue(text("chat from home"));
    try {
      await startDaemon(b);
      sendMessage(b, { text: "hi" });
      const [reply] = await waitForOut(b, 1, 15_000);
      expect(reply!.text).toBe("chat from home");
    } finally {
      await killDaemon(b, "SIGTERM");
    }
  }, 40_000);

  test("~/.scv as a symlink to the SCV home is the same file", async () => {
    const { root, env } = homeWithDefaultScvHome();
    const ws = join(root, "ws");
    mkdirSync(ws);
    symlinkSync(join(env.HOME!, ".scv"), join(ws, ".scv"));
    fake.queue(text("linked"));
    const r = await runBinary(["exec", "hi"], env, ws);
    expect(r.stderr).not.toContain("a project file cannot set");
    expect(r.code).toBe(0);
  }, 30_000);
});
