// Sign-in files and SCV's state files are read without blocking, as regular files only, within a limit: a
// FIFO or a link to /dev/zero placed there (by an agent, say) never hangs or swells SCV.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LoginError } from "../../src/accounts/login-io";
import { storeDshKey } from "../../src/accounts/dsh-key";
import { dshSignedIn, grokSignedIn, piSignedIn } from "../../src/agents/signin";
import { delegationsDir, listRecords } from "../../src/process/delegation-records";
import { readReconcileStats } from "../../src/process/reconcile";

const root = mkdtempSync(join(tmpdir(), "scv-signin-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = join(root, String(n++));
  mkdirSync(dir, { recursive: true });
  return dir;
};
const mkfifo = (path: string) => expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);

test("a FIFO, /dev/zero or an oversized sign-in file counts as no sign-in, at once", () => {
  const home = fresh();
  mkdirSync(join(home, ".dsh"));
  mkdirSync(join(home, ".grok"));
  mkdirSync(join(home, ".pi", "agent"), { recursive: true });
  mkfifo(join(home, ".dsh", ".credentials.yaml"));
  symlinkSync("/dev/zero", join(home, ".grok", "auth.json"));
  mkfifo(join(home, ".grok", "config.toml"));
  writeFileSync(join(home, ".pi", "agent", "auth.json"), `{"x":{"key":"k"}}${" ".repeat(1024 * 1024)}`);
  const started = performance.now();
  expect(dshSignedIn({ home, env: {} })).toBe(false);
  expect(grokSignedIn({ home, env: {} })).toBe(false);
  expect(piSignedIn({ home, env: {} })).toBe(false);
  expect(performance.now() - started).toBeLessThan(10_000); // refused, not blocked forever (bound for a busy machine)
});

test("storing a key over a FIFO refuses with the file's name instead of hanging or dropping its content", () => {
  const home = fresh();
  mkdirSync(join(home, ".dsh"));
  const file = join(home, ".dsh", ".credentials.yaml");
  mkfifo(file);
  expect(() => storeDshKey(home, "sk-test")).toThrow(LoginError);
  expect(() => storeDshKey(home, "sk-test")).toThrow(`sign-in file ${file} is a FIFO (named pipe)`);
});

test("a FIFO as a delegation record or as the reconcile statistics is skipped at once", () => {
  const home = fresh();
  mkdirSync(delegationsDir(home), { recursive: true });
  mkfifo(join(delegationsDir(home), "fake-000001.json"));
  mkfifo(join(home, "state", "reconcile.json"));
  expect(listRecords(home)).toEqual([]);
  expect(readReconcileStats(home)).toEqual({ orphans_stopped_total: 0 });
});
