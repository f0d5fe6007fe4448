// The session lock through the compiled binary (red team finding 7): concurrent `scv exec --resume` of one
// session never both get in; the second is refused with the holder's pid, and nothing a finished resume wrote is
// lost from the file.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary, runBinary } from "../fake/binary";
import { hang, text } from "../fake/model-server";

const fake = fakeModelForFile();

async function firstSession(env: Record<string, string>, workspace: string): Promise<string> {
  fake.queue(text("first answer"));
  const r = await runBinary(["exec", "--json", "start"], env, workspace);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n")[0]!).params.session_id;
}

const records = (home: string, sid: string) =>
  readFileSync(join(home, "state", "sessions", `${sid}.jsonl`), "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));

test("a second resume of an open session is refused naming the holder's pid", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const sid = await firstSession(env, workspace);
  fake.queue(hang("still thinking"));
  const holder = Bun.spawn([requireBinary(), "exec", "--json", "--resume", sid, "hold it"], { cwd: workspace, env, stdout: "pipe", stderr: "pipe" });
  try {
    // Wait until the holder's turn is under way (its request reached the model).
    const deadline = Date.now() + 10_000;
    while (fake.requests.length < 2 && Date.now() < deadline) await Bun.sleep(20);
    expect(fake.requests.length).toBe(2);
    const second = await runBinary(["exec", "--resume", sid, "me too"], env, workspace);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`open in another SCV process (pid ${holder.pid})`);
    expect(fake.requests.length).toBe(2);
  } finally {
    holder.kill("SIGTERM");
    await holder.exited;
  }
  // The holder is gone: its lock no longer binds.
  fake.queue(text("after the holder"));
  const third = await runBinary(["exec", "--resume", sid, "now"], env, workspace);
  expect(third.stderr).not.toContain("open in another");
  expect(third.stdout).toBe("after the holder\n");
}, 30_000);

test("three concurrent resumes: those that get in keep every reply in the file, the others are refused", async () => {
  const { env, workspace, home } = fakeHome(fake.url);
  const sid = await firstSession(env, workspace);
  for (let i = 0; i < 3; i++) fake.queue(text(`reply ${i}`));
  const runs = await Promise.all([0, 1, 2].map((i) => runBinary(["exec", "--resume", sid, `prompt ${i}`], env, workspace)));
  const done = runs.filter((r) => r.code === 0);
  const refused = runs.filter((r) => r.code !== 0);
  expect(done.length).toBeGreaterThanOrEqual(1);
  for (const r of refused) expect(r.stderr).toMatch(/open in another SCV process \(pid \d+\)|being opened by another SCV process/);
  const stored = records(home, sid);
  const replies = stored.filter((r) => r.type === "turn_ended").map((r) => r.reply);
  expect(replies.length).toBe(1 + done.length);
  for (const r of done) expect(replies).toContain(r.stdout.trimEnd());
  expect(stored.filter((r) => r.type === "resumed").length).toBe(done.length);
}, 30_000);
