// 1 GiB through the runner: memory stays bounded while head, tail and counts stay exact.
import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { runProcess } from "../../src/process";

describe("large output", () => {
  test("1 GiB of output: bounded memory, exact head, tail and counts", async () => {
    const line = "0123456789abcdef\n"; // 17 bytes
    const total = 2 ** 30;
    Bun.gc(true);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    let chunks = 0;
    const r = await runProcess(
      {
        argv: ["/bin/bash", "-c", `yes 0123456789abcdef | head -c ${total}`],
        cwd: tmpdir(),
        env: { ...process.env },
        stdin: "null",
        combined: true,
        captureBytes: 4096,
        onStdout: () => void chunks++,
      },
    );
    clearInterval(sampler);
    const c = r.combined!;
    const byteAt = (i: number) => line[i % line.length]!;
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => byteAt(from + k)).join("");
    expect(r.exitCode).toBe(0);
    expect(c.totalBytes).toBe(total);
    expect(c.totalLines).toBe(Math.floor(total / 17) + 1); // the last line has no newline
    expect(c.truncated).toBe(true);
    expect(c.headBytes).toBe(2048);
    expect(c.tailBytes).toBe(2048);
    expect(c.text).toBe(`${range(0, 2048)}\n[... ${total - 4096} bytes omitted ...]\n${range(total - 2048, total)}`);
    expect(chunks).toBeGreaterThan(1000);
    expect(peak - baseline).toBeLessThan(96 * 2 ** 20);
  }, 30_000);
});
