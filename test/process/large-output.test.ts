// 1 GiB through the runner: memory stays bounded while head, tail and counts stay exact. The run happens in a
// child process (fixtures/large-output-child.ts) so its memory is measured alone.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

describe("large output", () => {
  test("1 GiB of output: bounded memory, exact head, tail and counts", async () => {
    const line = "0123456789abcdef\n"; // 17 bytes
    const total = 2 ** 30;
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "large-output-child.ts")], { env: process.env, stdout: "pipe", stderr: "inherit" });
    const r = JSON.parse(await new Response(child.stdout).text());
    expect(await child.exited).toBe(0);
    const byteAt = (i: number) => line[i % line.length]!;
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => byteAt(from + k)).join("");
    expect(r.exitCode).toBe(0);
    expect(r.totalBytes).toBe(total);
    expect(r.totalLines).toBe(Math.floor(total / 17) + 1); // the last line has no newline
    expect(r.truncated).toBe(true);
    expect(r.headBytes).toBe(2048);
    expect(r.tailBytes).toBe(2048);
    expect(r.text).toBe(`${range(0, 2048)}\n[... ${total - 4096} bytes omitted ...]\n${range(total - 2048, total)}`);
    expect(r.chunks).toBeGreaterThan(1000);
    expect(r.growth).toBeLessThan(96 * 2 ** 20);
    // A gigabyte through three processes is CPU-bound: about 7 s on this 2-core machine, over 30 s at load 10.
    // Nothing here is about time, so the bound only catches a hang.
  }, 180_000);
});
