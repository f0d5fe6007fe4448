// Fake SCV homes and workspaces for the config tests: real files in temp dirs (under the preload's temp root),
// removed by removeConfigHomes in each test file's afterEach.
import { expect } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../src/config/load";

const dirs: string[] = [];

/** A home with `user` as its config.toml and a workspace with `project` as .scv/config.toml (undefined: no file). */
export function configHome(user?: string, project?: string) {
  const root = mkdtempSync(join(tmpdir(), "scv-cfg-"));
  dirs.push(root);
  const home = join(root, "home");
  const ws = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(join(ws, ".scv"), { recursive: true });
  if (user !== undefined) writeFileSync(join(home, "config.toml"), user);
  if (project !== undefined) writeFileSync(join(ws, ".scv", "config.toml"), project);
  return { env: { SCV_HOME: home, HOME: root } as NodeJS.ProcessEnv, ws, home, root };
}

export function removeConfigHomes(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** The message of the ConfigError `fn` throws; fails the test when it throws nothing or something else. */
export function configErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
}
