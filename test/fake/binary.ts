// The compiled binary under test. `bun run build` makes it; tests that need it fail with that advice.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SCV_BINARY = join(import.meta.dir, "..", "..", "dist", "scv");

export function requireBinary(): string {
  if (!existsSync(SCV_BINARY)) throw new Error(`${SCV_BINARY} is missing: run \`bun run build\` before the tests`);
  return SCV_BINARY;
}

/** A temporary SCV_HOME whose active provider is the fake endpoint at `baseUrl`, and an empty workspace. */
export function fakeHome(baseUrl: string, extra = ""): { home: string; workspace: string; env: Record<string, string> } {
  const root = mkdtempSync(join(tmpdir(), "scv-bin-"));
  const home = join(root, "scv-home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${baseUrl}"\nmodel = "fake-model"\nmax_retries = 0\n${extra}`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "home"), SCV_HOME: home };
  return { home, workspace, env };
}
