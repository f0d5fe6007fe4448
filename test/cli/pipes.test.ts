// Listing commands through the compiled binary into a pipe the reader closes early (`| head -1`): they end quietly
// with status 0, never with a stack trace; and `scv -C` with a path that is not a directory is a usage error.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary, runBinary } from "../fake/binary";

setDefaultTimeout(60_000);
afterAll(() => removeFakeHomes());

test("scv schedules list | head -1 exits 0 with nothing on stderr, every time", async () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9");
  // Enough schedules that the listing is written after head has gone.
  for (let i = 0; i < 40; i++) expect((await runBinary(["schedules", "add", "--every", "1d", `say hello number ${i}`], env, workspace)).code).toBe(0);
  for (let run = 0; run < 5; run++) {
    const proc = Bun.spawn(["bash", "-c", `"$0" schedules list | head -1 >/dev/null; exit "\${PIPESTATUS[0]}"`, requireBinary()], { env, cwd: workspace, stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  }
});

test("scv -C with a file is a usage error (exit 2), as for scv exec", async () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9");
  const file = join(workspace, "notes.txt");
  writeFileSync(file, "x");
  for (const args of [["-C", file], ["exec", "-C", file, "hi"]]) {
    const r = await runBinary(args, env, workspace);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("not a directory");
  }
});

test("scv schedules add --in 5m makes a one-off fire five minutes from now; --in and --at together are refused", async () => {
  const { env, workspace } = fakeHome("http://127.0.0.1:9");
  const before = Date.now();
  const r = await runBinary(["schedules", "add", "--in", "5m", "--json", "stand up"], env, workspace);
  expect(r.code).toBe(0);
  const made = JSON.parse(r.stdout);
  const at = Date.parse(made.schedule.trigger.at);
  expect(made.schedule.trigger.kind).toBe("at");
  expect(at - before).toBeGreaterThanOrEqual(5 * 60_000 - 1000);
  expect(at - before).toBeLessThan(5 * 60_000 + 10_000);
  const words = JSON.parse((await runBinary(["schedules", "add", "--in", "1 hour and 30 minutes", "--json", "stretch"], env, workspace)).stdout);
  expect(Date.parse(words.schedule.trigger.at) - before).toBeGreaterThanOrEqual(90 * 60_000 - 1000);
  expect(Date.parse(words.schedule.trigger.at) - before).toBeLessThan(90 * 60_000 + 10_000);
  const both = await runBinary(["schedules", "add", "--in", "5m", "--at", "12:00", "x"], env, workspace);
  expect(both.code).not.toBe(0);
  expect(both.stderr).toContain("give --in or --at, not both");
  const bad = await runBinary(["schedules", "add", "--in", "soon", "x"], env, workspace);
  expect(bad.stderr).toContain('"soon" is not a duration');
});
