// Peak RSS of `dist/scv server --stdio` fed 10,000 hostile protocol lines (target: under 150 MiB), against the
// same binary idle (initialized, no further input) in this run. The lines mix what a red-team sends: very deep
// nesting (1M levels), very wide arrays and objects, strings near the 16 MiB line limit, lines over it,
// invalid UTF-8, huge and odd ids, unknown methods and plain junk. The server must still answer afterwards.
// Run with `bun bench/protocol-memory.ts` (LINES=… to change the count).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const LINES = Number(process.env.LINES ?? 10_000);
const MiB = 1024 * 1024;
const scv = join(import.meta.dir, "..", "dist", "scv");
const dir = mkdtempSync(join(tmpdir(), "scv-bench-proto-"));
const env = { PATH: process.env.PATH ?? "", HOME: dir, SCV_HOME: join(dir, "scv-home") };

function peakRssMiB(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The hostile line for index i (big ones are rare, as in the red-team run; they dominate the volume). */
function hostile(i: number): string | Uint8Array {
  switch (i % 200) {
    case 0:
      return "[".repeat(1_000_000) + "]".repeat(1_000_000);
    case 1:
      return `{"jsonrpc":"2.0","id":1,"method":"x","params":${'{"a":'.repeat(200_000)}1${"}".repeat(200_000)}}`;
    case 2:
      return `[${"[],".repeat(4 * MiB)}[]]`;
    case 3:
      return `{"jsonrpc":"2.0","id":2,"method":"turn.start","params":{"session_id":"s","prompt":"${"x".repeat(15 * MiB)}"}}`;
    case 4:
      return "y".repeat(17 * MiB); // over the line limit
    case 5:
      return `{"a":[${"1,".repeat(3 * MiB)}1]}`;
    case 6:
      return new Uint8Array(64 * 1024).fill(0xff); // invalid UTF-8
    default:
      return [
        `{"jsonrpc":"2.0","id":12345678901234567890123,"method":"nope"}`,
        `{"jsonrpc":"2.0","id":${i},"method":"session.start","params":{"cwd":7}}`,
        `not json at all ${i}`,
        `{"jsonrpc":"2.0","id":{"x":[1,2,3]},"method":"initialize"}`,
        `${"[".repeat(300)}${"]".repeat(300)}`,
        `{"jsonrpc":"1.0","id":"${"i".repeat(1000)}","method":"initialize"}`,
      ][i % 6]!;
  }
}

async function serve(feed: (stdin: Bun.FileSink) => Promise<void>): Promise<{ peak: number; answered: boolean; replies: number }> {
  const p = Bun.spawn([scv, "server", "--stdio"], { env, cwd: dir, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  let replies = 0;
  let answered = false;
  const reading = (async () => {
    let buf = "";
    const decoder = new TextDecoder();
    for await (const chunk of p.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        replies++;
        if (line.includes('"id":"last"') && line.includes('"protocol_version":3')) answered = true;
      }
      if (answered) break;
    }
  })();
  const send = async (line: string | Uint8Array) => {
    p.stdin.write(line);
    p.stdin.write("\n");
    await p.stdin.flush();
  };
  await send(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocol_version: 3 } }));
  await feed(p.stdin);
  await send(JSON.stringify({ jsonrpc: "2.0", id: "last", method: "initialize", params: { protocol_version: 3 } }));
  const timer = setTimeout(() => p.kill("SIGKILL"), 120_000);
  await reading;
  clearTimeout(timer);
  const peak = peakRssMiB(p.pid);
  p.kill("SIGKILL");
  await p.exited;
  return { peak, answered, replies };
}

try {
  const idle = await serve(async () => {
    await Bun.sleep(1000); // the server loads everything it would for real traffic
  });
  const t0 = performance.now();
  let bytes = 0;
  const run = await serve(async (stdin) => {
    for (let i = 0; i < LINES; i++) {
      const line = hostile(i);
      bytes += line.length + 1;
      stdin.write(line);
      stdin.write("\n");
      await stdin.flush();
    }
  });
  const seconds = (performance.now() - t0) / 1000;
  // The worst case for one line: valid requests near the line limit, back to back (each must be decoded and parsed).
  const bigLine = hostile(3) as string;
  const worst = await serve(async (stdin) => {
    for (let i = 0; i < 40; i++) {
      stdin.write(bigLine);
      stdin.write("\n");
      await stdin.flush();
    }
  });
  console.log(`idle server (initialized)              peak RSS ${idle.peak.toFixed(1)} MiB   (baseline)`);
  console.log(
    `${LINES} hostile lines (${(bytes / MiB).toFixed(0)} MiB, ${seconds.toFixed(1)} s)   peak RSS ${run.peak.toFixed(1)} MiB   ${(run.peak / idle.peak).toFixed(2)}x   ` +
      `target < 150 MiB: ${run.peak < 150 ? "met" : "MISSED"}; answered afterwards: ${run.answered ? "yes" : "NO"} (${run.replies} replies)`,
  );
  console.log(`40 valid 15 MiB lines back to back          peak RSS ${worst.peak.toFixed(1)} MiB   ${(worst.peak / idle.peak).toFixed(2)}x   (worst case per line; answered afterwards: ${worst.answered ? "yes" : "NO"})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
