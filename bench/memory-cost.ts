// What the owner's memory costs each request: `dist/scv exec` against the scripted model on 127.0.0.1, the
// first request's body measured with no memory files, and with USER.md and the workspace's notes filled to
// their default caps (4 KiB and 8 KiB). Memory rides along in every request of an owner session, so this is
// the per-request price of the feature at its bound. Also `scv exec` wall time both ways (same run, medians).
// Target: full memory adds at most the caps plus 1 KiB of framing (about 3.3k tokens at 4 bytes a token).
// Run: bun run build && bun bench/memory-cost.ts
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workspaceId } from "../src/memory/index";
import { startFakeModel, text } from "../test/fake/model-server";
import { median } from "./bare";

const RUNS = Number(process.env.RUNS ?? 9);
const scv = join(import.meta.dir, "..", "dist", "scv");
const root = mkdtempSync(join(tmpdir(), "scv-bench-memory-"));
const fake = await startFakeModel();

function setup(name: string, extra = ""): { env: Record<string, string>; workspace: string; home: string } {
  const home = join(root, name, "home");
  const workspace = join(root, name, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n${extra}`);
  return { env: { PATH: process.env.PATH ?? "", HOME: join(root, name), SCV_HOME: home }, workspace: realpathSync(workspace), home };
}

/** Notes of ordinary length up to `bytes` (a hand-edited file at its cap). */
function notes(bytes: number, topic: string): string {
  let out = "";
  for (let i = 1; ; i++) {
    const line = `- ${topic} note ${i}: the user prefers concise answers with the reasoning spelled out when asked.\n`;
    if (Buffer.byteLength(out + line) > bytes) return out;
    out += line;
  }
}

async function firstRequest(env: Record<string, string>, workspace: string): Promise<{ bytes: number; ms: number }> {
  const from = fake.requests.length;
  fake.queue(text("ok"));
  const t0 = performance.now();
  const p = Bun.spawn([scv, "exec", "hello"], { cwd: workspace, env, stdout: "ignore", stderr: "ignore" });
  if ((await p.exited) !== 0) throw new Error("scv exec failed");
  const ms = performance.now() - t0;
  return { bytes: JSON.stringify(fake.requests[from]!.body).length, ms };
}

const off = setup("off", "[memory]\nenabled = false\n");
const empty = setup("empty");
const full = setup("full");
mkdirSync(join(full.home, "memory", "projects"), { recursive: true, mode: 0o700 });
const userNotes = notes(4096, "user");
const projectNotes = notes(8192, "project");
writeFileSync(join(full.home, "memory", "USER.md"), userNotes, { mode: 0o600 });
writeFileSync(join(full.home, "memory", "projects", `${workspaceId(full.workspace)}.md`), projectNotes, { mode: 0o600 });

const offRuns: { bytes: number; ms: number }[] = [];
const emptyRuns: { bytes: number; ms: number }[] = [];
const fullRuns: { bytes: number; ms: number }[] = [];
try {
  for (let i = 0; i < RUNS; i++) {
    offRuns.push(await firstRequest(off.env, off.workspace));
    emptyRuns.push(await firstRequest(empty.env, empty.workspace));
    fullRuns.push(await firstRequest(full.env, full.workspace));
  }
} finally {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
const o = offRuns[0]!.bytes;
const e = emptyRuns[0]!.bytes;
const f = fullRuns[0]!.bytes;
const memoryBytes = Buffer.byteLength(userNotes) + Buffer.byteLength(projectNotes);
const eMs = median(emptyRuns.map((r) => r.ms));
const fMs = median(fullRuns.map((r) => r.ms));
console.log(`runs: ${RUNS}`);
console.log(`first request, memory turned off:      ${o} bytes (~${Math.ceil(o / 4)} tokens)`);
console.log(`first request, no memory files:        ${e} bytes (~${Math.ceil(e / 4)} tokens), ratio ${(e / o).toFixed(2)}x (the tool and the section's text)`);
console.log(`first request, memory files at caps:   ${f} bytes (~${Math.ceil(f / 4)} tokens), ratio ${(f / o).toFixed(2)}x`);
console.log(`memory cost per request: +${f - e} bytes (~${Math.ceil((f - e) / 4)} tokens) for ${memoryBytes} bytes of notes; framing ${f - e - memoryBytes} bytes (target <= 1024)`);
const oMs = median(offRuns.map((r) => r.ms));
console.log(`scv exec wall time: ${oMs.toFixed(0)} ms off, ${eMs.toFixed(0)} ms empty, ${fMs.toFixed(0)} ms with full memory (medians), ratio full/off ${(fMs / oMs).toFixed(2)}x`);
