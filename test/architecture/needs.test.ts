// test/fake/needs.ts, which every test that needs a tool goes through: locally a missing tool skips (said on
// stderr); under CI=true it fails the file, naming what to install. Run in a child with a PATH that has no tmux.
import { expect, test } from "bun:test";
import { join } from "node:path";

const script = `import { needs } from ${JSON.stringify(join(import.meta.dir, "..", "fake", "needs.ts"))}; console.log(needs("tmux"));`;

function probe(ci: boolean) {
  const r = Bun.spawnSync([process.execPath, "-e", script], { env: { PATH: "/nonexistent", ...(ci ? { CI: "true" } : {}) }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

test("a missing tool skips locally and fails under CI=true, saying what to install", () => {
  const local = probe(false);
  expect(local.code).toBe(0);
  expect(local.out.trim()).toBe("false");
  expect(local.err).toContain("skipped: tests that need tmux (apt-get install tmux)");
  const ci = probe(true);
  expect(ci.code).not.toBe(0);
  expect(ci.err).toContain("CI=true and this machine lacks tmux, which a test needs: apt-get install tmux (.ci/run installs it)");
});
