// The compiled binary under test. `bun run build` makes it; tests that need it fail with that advice, also when
// it is older than any file under src/ (a local run would otherwise pass against a stale binary).
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { sweepPrivateTmps } from "../../src/process/owned-files";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "bun:test";
import { type FakeModel, type FakeModelOptions, startFakeModel } from "./model-server";

export const SCV_BINARY = join(import.meta.dir, "..", "..", "dist", "scv");

const SRC = join(import.meta.dir, "..", "..", "src");
let checkedFresh = false;

/** The compiled binary; throws with the advice when it is missing or older than a file under src/ (a stale build). */
export function requireBinary(): string {
  if (!existsSync(SCV_BINARY)) throw new Error(`${SCV_BINARY} is missing: run \`bun run build\` before the tests`);
  if (!checkedFresh) {
    const built = statSync(SCV_BINARY).mtimeMs;
    const newer = newestUnder(SRC);
    if (newer.mtimeMs > built) throw new Error(`${SCV_BINARY} is older than ${newer.path}: run \`bun run build\` so the tests run the code as it is`);
    checkedFresh = true;
  }
  return SCV_BINARY;
}

function newestUnder(dir: string): { path: string; mtimeMs: number } {
  let newest = { path: dir, mtimeMs: 0 };
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const mtimeMs = statSync(path).mtimeMs;
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  return newest;
}

/** Runs the binary to its end and returns its exit status and output as text. Asynchronous, so a fake server
 *  in this process keeps answering it. `stdin` is written to it, else its stdin is closed. */
export async function runBinary(args: readonly string[], env: Record<string, string>, cwd: string, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([requireBinary(), ...args], { cwd, env, stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

/** Every temporary root fakeHome made that removeFakeHomes has not removed yet. */
const madeRoots: string[] = [];

/** A temporary SCV_HOME whose active provider is the fake endpoint at `baseUrl`, and an empty workspace.
 *  A test file removes them with removeFakeHomes in its afterEach or afterAll. */
export function fakeHome(baseUrl: string, extra = ""): { home: string; workspace: string; env: Record<string, string> } {
  const root = mkdtempSync(join(tmpdir(), "scv-bin-"));
  madeRoots.push(root);
  const home = join(root, "scv-home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${baseUrl}"\nmodel = "fake-model"\nmax_retries = 0\n${extra}`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "home"), SCV_HOME: home };
  return { home, workspace, env };
}

/** Removes every temporary SCV_HOME and workspace fakeHome has made so far (after their processes ended). */
export function removeFakeHomes(): void {
  for (const root of madeRoots.splice(0)) rmSync(root, { recursive: true, force: true });
  // The private temporary directories of sandboxed commands whose SCV a test killed (they are in the machine's
  // TMPDIR: the binary runs without the tests' one); only those whose owner is gone.
  sweepPrivateTmps("/tmp");
}

/**
 * The scripted model every test of a file shares: started before the file's tests, closed after them together
 * with every fake home the file made. The value stands in for the running model (it forwards to it), so tests
 * keep reading `fake.url`, `fake.queue(...)`; touching it outside a test fails saying why.
 */
export function fakeModelForFile(opts?: FakeModelOptions): FakeModel {
  return scriptedModel("file", opts);
}

/**
 * A scripted model of each test's own, started before it and closed after it with the fake homes it made, so a
 * late request from one test's run can never take another test's reply. Used as fakeModelForFile's value is.
 */
export function fakeModelForEachTest(opts?: FakeModelOptions): FakeModel {
  return scriptedModel("test", opts);
}

function scriptedModel(per: "file" | "test", opts?: FakeModelOptions): FakeModel {
  let model: FakeModel | undefined;
  (per === "file" ? beforeAll : beforeEach)(async () => {
    model = await startFakeModel(opts);
  });
  (per === "file" ? afterAll : afterEach)(async () => {
    await model?.close();
    model = undefined;
    removeFakeHomes();
  });
  return new Proxy({} as FakeModel, {
    get(_, key) {
      if (!model) throw new Error(`the fake model starts before each ${per === "file" ? "file" : "test"}; use it inside a test`);
      const value = (model as unknown as Record<string | symbol, unknown>)[key];
      return typeof value === "function" ? value.bind(model) : value;
    },
  });
}

let userBinary: string | undefined;

/**
 * The binary at a path an ordinary user (a test's throwaway uid) can reach: the checkout may sit in a folder only
 * root can enter (a `mktemp -d` clone is 0700). A hard link (or, across file systems, a copy) in a world-readable
 * folder inside the run's temporary root (test/preload.ts), which goes with that root.
 */
export function binaryForAnyUser(): string {
  if (userBinary) return userBinary;
  const root = dirname(process.env.TMPDIR ?? tmpdir());
  chmodSync(root, 0o711); // others may pass through (not list) to reach the folder below
  const dir = join(root, "bin-for-any-user");
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const target = join(dir, "scv");
  rmSync(target, { force: true });
  try {
    linkSync(requireBinary(), target);
  } catch {
    copyFileSync(requireBinary(), target);
  }
  chmodSync(target, 0o755);
  return (userBinary = target);
}
