// `scv exec --resume` of a hostile session file, and SIGTERM in every state (red team findings 6 and 10): an
// item nested 100,000 levels deep and a 200 MB line are skipped with a warning, in bounded memory, and the turn
// runs; SIGTERM ends exec within 2 s while the model hangs and while a command ignores SIGTERM.
import { expect, test } from "bun:test";
import { appendFileSync, closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary, runBinary } from "../fake/binary";
import { hang, text, toolCalls } from "../fake/model-server";
import { alive, exitWithPeak, pidsWithArgv } from "../fake/proc";

const fake = fakeModelForFile();
const MiB = 1024 * 1024;

async function firstSession(env: Record<string, string>, workspace: string): Promise<string> {
  fake.queue(text("first answer"));
  const r = await runBinary(["exec", "--json", "start"], env, workspace);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n")[0]!).params.session_id;
}

test("a deeply nested item and a 200 MB line are skipped with warnings, in bounded memory, and the turn runs", async () => {
  const { env, workspace, home } = fakeHome(fake.url);
  const sid = await firstSession(env, workspace);
  const file = join(home, "state", "sessions", `${sid}.jsonl`);
  const deep = 100_000;
  appendFileSync(file, `{"type":"item","at":1,"turn":"t1","item":{"role":"user","content":${"[".repeat(deep)}${"]".repeat(deep)}}}\n`);
  // 200 MB in one record, written in pieces.
  const fd = openSync(file, "a");
  writeSync(fd, '{"type":"item","at":1,"turn":"t1","item":{"role":"user","content":"');
  const block = Buffer.alloc(8 * MiB, "a");
  for (let i = 0; i < 25; i++) writeSync(fd, block);
  writeSync(fd, '"}}\n');
  closeSync(fd);

  fake.queue(text("resumed fine"));
  const proc = Bun.spawn([requireBinary(), "exec", "--resume", sid, "still there?"], { cwd: workspace, env, stdout: "pipe", stderr: "pipe" });
  const out = new Response(proc.stdout).text();
  const err = new Response(proc.stderr).text();
  const { code, peak } = await exitWithPeak(proc);
  expect(await err).toContain("nested more than 256 levels deep");
  expect(await err).toContain("longer than 64 MiB");
  expect(await out).toBe("resumed fine\n");
  expect(code).toBe(0);
  expect(peak).toBeLessThan(150 * MiB); // before: 1.5 GB

}, 60_000);

async function sigtermAfter(ready: () => boolean, proc: ReturnType<typeof Bun.spawn>): Promise<number> {
  const deadline = Date.now() + 25_000;
  while (!ready() && Date.now() < deadline) await Bun.sleep(20);
  expect(ready()).toBe(true);
  const sent = performance.now();
  proc.kill("SIGTERM");
  await proc.exited;
  return performance.now() - sent;
}

test("SIGTERM ends exec within 2 s while the model hangs", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(hang("half"));
  const before = fake.requests.length;
  const proc = Bun.spawn([requireBinary(), "exec", "wait"], { cwd: workspace, env, stdout: "pipe", stderr: "pipe" });
  const ms = await sigtermAfter(() => fake.requests.length > before, proc);
  expect(ms).toBeLessThan(2000);
  expect(proc.exitCode).toBe(130);
}, 30_000);

test("SIGTERM ends exec within 2 s while a command ignores SIGTERM, and the command does not outlive it", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const argv = ["sleep", "317.5"];
  fake.queue(toolCalls([{ name: "bash", arguments: { command: `trap '' TERM; ${argv.join(" ")}; echo done` } }]), text("never"));
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "run it"], { cwd: workspace, env, stdout: "pipe", stderr: "pipe" });
  const ms = await sigtermAfter(() => pidsWithArgv(argv).length > 0, proc);
  expect(ms).toBeLessThan(2000);
  const deadline = Date.now() + 25_000; // a bound for a busy machine; nothing here promises a time
  while (pidsWithArgv(argv).some(alive) && Date.now() < deadline) await Bun.sleep(50);
  const left = pidsWithArgv(argv);
  for (const pid of left) process.kill(pid, "SIGKILL");
  expect(left).toEqual([]);
}, 30_000);
