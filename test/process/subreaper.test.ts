// The subreaper path runs in a child bun process (test/process/fixtures/subreaper-child.ts), so the test
// runner itself never becomes a subreaper.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { bunOwnedPids, foreignChildren, knownBunOwnedCount, ownChildren } from "../../src/process/subreaper";

describe("subreaper", () => {
  test("escapees without the tag are found as orphans, killed and reaped; Bun's own children are never reaped", async () => {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "subreaper-child.ts")], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env },
    });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const r = JSON.parse(out);
    expect(r.became).toBe(true);
    expect(r.isSubreaper).toBe(true);
    // setsid'd and job-control sleeps with an empty environment: gone, not even zombies, and the call did not
    // wait for a drain (the pipe closed when they died).
    expect(r.escapees).toMatchObject({ pids: 3, states: ["gone", "gone", "gone"], drained: true, cleanedUp: 3 });
    expect(r.escapees.durationMs).toBeLessThan(10_000); // not the sleeps' 300 s
    expect(r.foreignAfterEscapees).toBe(0);
    // A zombie Bun still has to reap: reapOrphans leaves it, and Bun reports its exit normally.
    expect(r.bunChild).toEqual({ stateBefore: "Z", reapedByUs: false, exitCode: 0 });
    // An untagged orphan that an older, still running run could own survives that short run, then goes.
    expect(r.concurrent.whileOlderRuns).not.toBe("gone");
    expect(r.concurrent.afterBoth).toBe("gone");
    expect(r.concurrent.older).toBe("older-done\n");
    expect(r.foreignAtEnd).toBe(0);
  }, 20_000);

  test("Bun's children are recognised by their pidfds", async () => {
    const p = Bun.spawn(["sleep", "5"], { stdin: "ignore", stdout: "ignore" });
    try {
      expect(bunOwnedPids().has(p.pid)).toBe(true);
    } finally {
      p.kill();
      await p.exited;
    }
  });

  test("Bun's children outside the runner are told apart once and remembered only while they live", async () => {
    for (let round = 0; round < 20; round++) {
      const kids = [0, 1].map(() => Bun.spawn(["sleep", "5"], { stdin: "ignore", stdout: "ignore" }));
      try {
        const foreign = foreignChildren(new Set());
        for (const k of kids) expect(foreign).not.toContain(k.pid);
      } finally {
        for (const k of kids) k.kill();
        await Promise.all(kids.map((k) => k.exited));
      }
      foreignChildren(new Set());
      // Ended children are forgotten: the memory never outgrows the children this process has now.
      expect(knownBunOwnedCount()).toBeLessThanOrEqual(ownChildren().length);
    }
  });
});
