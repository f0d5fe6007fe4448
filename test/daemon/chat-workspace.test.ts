// A chat's default workspace is a folder of its own (`~/scv-chat`), never the home: a chat's commands run there,
// and a home as the workspace would put its start-up files within their reach (issue 50).
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { daemonConfigProblem } from "../../src/daemon/preflight";
import { defaultChatWorkspace } from "../../src/user-home";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

test("with channels and no channels.workspace, chats work in ~/scv-chat, made private on first use, not in the home", () => {
  const root = mkdtempSync(join(tmpdir(), "scv-chat-ws-"));
  roots.push(root);
  const home = join(root, "home");
  const scvHome = join(root, "scv-home");
  mkdirSync(home);
  mkdirSync(scvHome);
  writeFileSync(join(scvHome, "config.toml"), `[channels.dir]\npath = "${join(root, "chat")}"\nowner = "me"\n`);
  const env = { HOME: home, SCV_HOME: scvHome, PATH: process.env.PATH };
  expect(daemonConfigProblem(env)).toBeUndefined();
  const ws = defaultChatWorkspace(env);
  expect(ws).toBe(join(home, "scv-chat"));
  expect(ws).not.toBe(home);
  const st = statSync(ws);
  expect(st.isDirectory()).toBe(true);
  expect(st.mode & 0o777).toBe(0o700);
});
