// The process runner against real processes: exit status, signals, order, deadlines, cancellation, escaped
// descendants, bounded drain, stdin, environment and 1 GB of output.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanupTagged, isSubreaper, killIdentity, RUN_TAG_VAR, runProcess, startProcess, type RunOptions } from "../../src/process";
import { findTagged, readStat } from "../../src/process/procfs";

function opts(cmd: string, extra: Partial<RunOptions> = {}): RunOptions {
  return { argv: ["/bin/bash", "-c", cmd], cwd: tmpdir(), env: { ...process.env }, stdin: "null", captureBytes: 65536, ...extra };
}

/** Live processes still carrying the run's tag (or a tag nested below it). */
const tagged = (tag: string) => findTagged(RUN_TAG_VAR, tag, { prefix: true });
const gone = (pid: number) => {
  const st = readStat(pid);
  return !st || st.state === "Z";
};
const pidsIn = (text: string) => text.split("\n").filter((l) => /^\d+$/.test(l)).map(Number);

/** Starts `cmd` (which prints "ready" once its traps are set) and resolves once it has: a wait on the event, not a sleep. */
async function startReady(cmd: string, extra: Partial<RunOptions> = {}) {
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  let seen = "";
  const running = startProcess(
    opts(cmd, {
      ...extra,
      onStdout: (c) => {
        seen += new TextDecoder().decode(c);
        if (seen.includes("ready")) ready();
      },
    }),
  );
  await isReady;
  return running;
}

describe("exit status and signals", () => {
  test("exit codes, and stdout/stderr captured separately with counts", async () => {
    const r = await runProcess(opts("echo out; printf 'e1\\ne2' >&2; exit 42"));
    expect(r.exitCode).toBe(42);
    expect(r.signal).toBeNull();
    expect(r.stdout).toMatchObject({ text: "out\n", totalBytes: 4, totalLines: 1, truncated: false });
    expect(r.stderr).toMatchObject({ text: "e1\ne2", totalBytes: 5, totalLines: 2, truncated: false });
    expect(r.combined).toBeUndefined();
    expect((await runProcess(opts("true"))).exitCode).toBe(0);
  });

  test("death by signal reports the signal name and no exit code", async () => {
    const r = await runProcess(opts("echo before; kill -USR1 $$; echo after"));
    expect(r.signal).toBe("SIGUSR1");
    expect(r.exitCode).toBeNull();
    expect(r.stdout.text).toBe("before\n");
    expect(r.timedOut || r.cancelled).toBe(false);
  });

  test("a missing program or working directory is a clear error, nothing runs", async () => {
    expect(() => startProcess(opts("", { argv: ["/nonexistent/program"] }))).toThrow(/cannot start "\/nonexistent\/program"/);
    expect(() => startProcess(opts("true", { cwd: "/nonexistent-dir" }))).toThrow(/working directory "\/nonexistent-dir" does not exist/);
    expect(() => startProcess(opts("", { argv: [] }))).toThrow(/argv/);
    expect(() => startProcess(opts("", { argv: ["echo", "a\0b"] }))).toThrow(/NUL/);
    // A deadline no timer can hold would fire at once and kill the child immediately: refused instead.
    expect(() => startProcess(opts("true", { timeoutMs: 2 ** 31 }))).toThrow(/timeoutMs must be from 0 to 2147483647/);
    expect(() => startProcess(opts("true", { timeoutMs: Number.NaN }))).toThrow(/timeoutMs/);
  });

  test("a signal aborted before the start gives `cancelled` without running anything", async () => {
    const marker = join(tmpdir(), `scv-runner-marker-${process.pid}-${Date.now()}`);
    const r = await runProcess(opts(`touch ${marker}`, { signal: AbortSignal.abort() }));
    expect(r.cancelled).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("combined output", () => {
  test("stdout and stderr keep their write order in one real pipe; >/dev/stdout and tee /dev/stderr work", async () => {
    const cmd = "for i in $(seq 1 200); do echo out$i; echo err$i >&2; done; echo direct >/dev/stdout; echo viatee | tee /dev/stderr >/dev/null";
    const r = await runProcess(opts(cmd, { combined: true }));
    const expected = Array.from({ length: 200 }, (_, i) => `out${i + 1}\nerr${i + 1}\n`).join("") + "direct\nviatee\n";
    expect(r.exitCode).toBe(0);
    expect(r.combined!.text).toBe(expected);
    expect(r.combined!.totalLines).toBe(402);
    expect(r.stdout.text).toBe(expected);
    expect(r.stderr.totalBytes).toBe(0);
  });

  test("output streams to the caller while the command runs", async () => {
    const began = performance.now();
    const arrivals: Array<{ at: number; text: string }> = [];
    const r = await runProcess(
      opts("echo first; sleep 0.8; echo second", {
        combined: true,
        onStdout: (c) => arrivals.push({ at: performance.now() - began, text: new TextDecoder().decode(c) }),
      }),
    );
    expect(arrivals.map((a) => a.text).join("")).toBe("first\nsecond\n");
    expect(arrivals[0]!.text).toBe("first\n");
    expect(arrivals[0]!.at).toBeLessThan(r.durationMs - 500);
  });
});

describe("deadline and cancellation", () => {
  test("the deadline KILLs the whole group at once, even members that ignore TERM", async () => {
    // A grace of 60 s: a deadline that sent TERM first and waited it out would take that long.
    const running = startProcess(opts("trap '' TERM; sleep 300 & sleep 300 & echo started; wait", { timeoutMs: 400, graceMs: 60_000 }));
    const r = await running.result;
    expect(r.timedOut).toBe(true);
    expect(r.cancelled).toBe(false);
    expect(r.signal).toBe("SIGKILL");
    expect(r.durationMs).toBeLessThan(20_000);
    expect(tagged(running.tag)).toEqual([]);
  });

  test("cancel sends TERM to the group, then KILL after the grace to a child that traps TERM", async () => {
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const running = startProcess(
      opts("trap 'echo got TERM' TERM; echo ready; while :; do sleep 0.05; done", {
        combined: true,
        graceMs: 700,
        onStdout: (c) => new TextDecoder().decode(c).includes("ready") && ready(),
      }),
    );
    await isReady;
    const cancelledAt = performance.now();
    running.cancel();
    const r = await running.result;
    const afterCancel = performance.now() - cancelledAt;
    expect(r.cancelled).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBe("SIGKILL");
    expect(r.combined!.text).toContain("got TERM");
    expect(afterCancel).toBeGreaterThanOrEqual(650);
    expect(afterCancel).toBeLessThan(20_000); // without the KILL it would never end
    expect(tagged(running.tag)).toEqual([]);
  });

  test("a child that exits on TERM ends the cancellation early with its own status", async () => {
    const controller = new AbortController();
    // A grace of 60 s: ending early means well before it (and with its own status, not a KILL).
    const running = await startReady("trap 'echo cleaning; exit 9' TERM; echo ready; while :; do sleep 0.05; done", { combined: true, signal: controller.signal, graceMs: 60_000 });
    controller.abort();
    const r = await running.result;
    expect(r).toMatchObject({ cancelled: true, exitCode: 9, signal: null });
    expect(r.combined!.text).toContain("cleaning");
    expect(r.durationMs).toBeLessThan(20_000);
  });

  test("the default grace between TERM and KILL is 2 seconds", async () => {
    const running = await startReady("trap '' TERM; echo ready; sleep 300");
    const cancelledAt = performance.now();
    running.cancel();
    const r = await running.result;
    const afterCancel = performance.now() - cancelledAt;
    expect(r.signal).toBe("SIGKILL");
    expect(afterCancel).toBeGreaterThanOrEqual(1950);
    expect(afterCancel).toBeLessThan(4500); // 2 s, not the next whole second or more, with room for a busy machine
  });

  test("a deadline of 0 kills the child even before it has started its program", async () => {
    const marker = join(tmpdir(), `scv-runner-deadline0-${process.pid}-${Date.now()}`);
    const r = await runProcess(opts(`sleep 0.3; touch ${marker}; sleep 30`, { timeoutMs: 0 }));
    expect(r).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(r.durationMs).toBeLessThan(10_000); // not the command's 30 s
    await Bun.sleep(400);
    expect(existsSync(marker)).toBe(false);
  });

  test("a deadline during the cancellation grace KILLs at once", async () => {
    const running = await startReady("trap '' TERM; echo ready; sleep 300", { graceMs: 60_000, timeoutMs: 600 });
    running.cancel();
    const r = await running.result;
    expect(r.cancelled).toBe(true);
    expect(r.signal).toBe("SIGKILL");
    expect(r.durationMs).toBeLessThan(20_000); // the deadline's KILL, not the 60 s grace
  });
});

describe("descendants", () => {
  test("background, setsid, nohup, double-fork and job-control children never survive, and the call returns promptly", async () => {
    const cmd = [
      "sleep 300 & echo $!",
      "setsid sleep 300 & echo $!",
      "nohup sleep 300 >/dev/null 2>&1 & echo $!",
      "( (sleep 300 & echo $!) & )",
      "set -m; sleep 300 & echo $!",
      "sleep 0.1",
    ].join("\n");
    const running = startProcess(opts(cmd, { combined: true }));
    const r = await running.result;
    const pids = pidsIn(r.combined!.text);
    expect(r.exitCode).toBe(0);
    expect(pids.length).toBe(5);
    expect(r.durationMs).toBeLessThan(10_000); // not the sleeps' 300 s
    expect(r.cleanedUp).toBeGreaterThanOrEqual(5);
    expect(r.drained).toBe(true);
    expect(pids.filter((p) => !gone(p))).toEqual([]);
    expect(tagged(running.tag)).toEqual([]);
  });

  test("a descendant holding the output pipe (untagged, own session) cannot keep the call alive", async () => {
    // env -i drops the tag and setsid leaves the session: only a subreaper could find this one.
    const running = startProcess(opts("env -i setsid sleep 30 & echo $!; sleep 0.3", { combined: true, drainMs: 200 }));
    const r = await running.result;
    const [holder] = pidsIn(r.combined!.text);
    try {
      expect(r.exitCode).toBe(0);
      expect(r.durationMs).toBeLessThan(10_000); // not the holder's 30 s
      // If another test made this process a subreaper, the orphan is found and stopped instead.
      expect(r.drained).toBe(isSubreaper());
      expect(gone(holder!)).toBe(isSubreaper());
    } finally {
      const st = readStat(holder!);
      if (st) await killIdentity({ pid: holder!, startTime: st.startTime }, 0);
    }
  });

  test("a leader that closes its output but keeps running is still waited for, and still bound by the deadline", async () => {
    const r = await runProcess(opts("echo bye; exec >&- 2>&-; sleep 0.6; exit 7", { combined: true }));
    expect(r.exitCode).toBe(7);
    expect(r.durationMs).toBeGreaterThanOrEqual(550);
    expect(r.combined!.text).toBe("bye\n");
    const t = await runProcess(opts("exec >&- 2>&-; sleep 300", { timeoutMs: 300 }));
    expect(t.timedOut).toBe(true);
    expect(t.durationMs).toBeLessThan(10_000); // the 300 ms deadline, not the 300 s sleep
  });

  test("one run's cleanup leaves a concurrent run alone", async () => {
    const long = startProcess(opts("sleep 1; echo long-done", { combined: true }));
    const short = await runProcess(opts("sleep 300 & echo $!", { combined: true }));
    const [bg] = pidsIn(short.combined!.text);
    expect(gone(bg!)).toBe(true);
    const r = await long.result;
    expect(r.exitCode).toBe(0);
    expect(r.combined!.text).toBe("long-done\n");
  });

  test("cleanupTagged stops the group and every tagged escapee (TERM, then KILL after the grace)", async () => {
    // "ready" once the escapee ignores TERM, so only the KILL after the grace can stop it.
    const running = await startReady("setsid bash -c 'trap \"\" TERM; echo ready; sleep 300' & echo $!; sleep 300", { combined: true });
    expect(tagged(running.tag).length).toBeGreaterThanOrEqual(2);
    const report = await cleanupTagged(running.tag, 300, running.identity);
    expect(report.killed).toBeGreaterThanOrEqual(1);
    const r = await running.result;
    expect(r.signal).toBe("SIGTERM");
    expect(tagged(running.tag)).toEqual([]);
  });
});

describe("identity", () => {
  test("a PID with a different start time never matches", async () => {
    const running = startProcess(opts("", { argv: ["sleep", "30"] }));
    expect(running.identity.startTime).toBe(readStat(running.identity.pid)!.startTime);
    expect(await killIdentity({ pid: running.identity.pid, startTime: "1" }, 0)).toBe(false);
    expect(gone(running.identity.pid)).toBe(false);
    expect(await killIdentity(running.identity, 500)).toBe(true);
    expect((await running.result).signal).toBe("SIGTERM");
  });
});

describe("stdin and environment", () => {
  test("stdin \"null\": a command that reads stdin gets EOF at once", async () => {
    const r = await runProcess(opts("cat; read line; echo rc=$?", { timeoutMs: 5000 }));
    expect(r.stdout.text).toBe("rc=1\n");
    expect(r.timedOut).toBe(false);
  });

  test("stdin \"pipe\" is a real pipe: written data arrives, end() gives EOF, /dev/stdin opens", async () => {
    const running = startProcess(opts("read line; echo \"got $line\"; cat /dev/stdin | wc -c | tr -d ' '", { stdin: "pipe", timeoutMs: 5000 }));
    await running.stdin!.write("hello\n");
    await running.stdin!.write(new TextEncoder().encode("world!"));
    await running.stdin!.end();
    const r = await running.result;
    expect(r.stdout.text).toBe("got hello\n6\n");
  });

  test("writing to a child that no longer reads rejects instead of crashing", async () => {
    const running = startProcess(opts("exit 0", { stdin: "pipe" }));
    await running.result;
    await expect(running.stdin!.write(new Uint8Array(1 << 20))).rejects.toThrow(/stdin is closed/);
  });

  test("the child gets the given environment plus SCV_RUN_TAG, never BUN_OPTIONS or BUN_BE_BUN", async () => {
    const env = { PATH: process.env.PATH, BUN_OPTIONS: "--smol", BUN_BE_BUN: "1", SCV_PARENT: "inst/sess/h1", [RUN_TAG_VAR]: "outer" };
    const running = startProcess(opts("env", { env }));
    const lines = (await running.result).stdout.text.split("\n");
    expect(lines).toContain("SCV_PARENT=inst/sess/h1");
    expect(lines.some((l) => l.startsWith("BUN_"))).toBe(false);
    expect(running.tag).toMatch(/^outer\/[0-9a-f]{16}$/);
    expect(lines).toContain(`${RUN_TAG_VAR}=${running.tag}`);
  });

  test("runs leave no file descriptors behind", async () => {
    const count = () => readdirSync("/proc/self/fd").length;
    await runProcess(opts("echo warm", { combined: true }));
    await Bun.sleep(50);
    const before = count();
    for (let i = 0; i < 8; i++) await runProcess(opts("echo x; echo y >&2", { stdin: i % 2 ? "pipe" : "null", combined: i % 3 === 0 }));
    const r = await runProcess(opts("env -i setsid sleep 5 & echo $!; sleep 0.2", { drainMs: 50 }));
    for (const pid of pidsIn(r.stdout.text)) {
      const st = readStat(pid);
      if (st) await killIdentity({ pid, startTime: st.startTime }, 0);
    }
    expect(r.drained).toBe(isSubreaper()); // the drain gave up (unless a subreaper found the holder)
    // Bun closes a finished child's pipes and pidfd from its event loop, a moment after the result (under load,
    // more than 50 ms later): wait for the count to come back, bounded; a leak never does.
    const end = Date.now() + 20_000;
    while (count() > before && Date.now() < end) await Bun.sleep(20);
    expect(count()).toBeLessThanOrEqual(before);
  });
});

test("what a cancel stops while the command runs is the command, not a process left running after it", async () => {
  // A child alive at the cancel (here for sure: `sleep` in the background, then `wait`): stopped with the command.
  const running = await startReady("sleep 300 & echo ready; wait", { combined: true });
  running.cancel();
  const r = await running.result;
  expect(r.cancelled).toBe(true);
  expect(r.cleanedUp).toBe(0);
  expect(tagged(running.tag)).toEqual([]);
  // Left running after a command that ended by itself, it is counted.
  const left = await runProcess(opts("sleep 300 & echo started"));
  expect(left.cleanedUp).toBe(1);
});
