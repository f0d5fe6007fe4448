// The store's limits through the compiled binary (`scv exec` with the scripted model): the total cap prunes the
// oldest sessions' checkpoints first, and a full disk during recording never fails the turn (skipped, with a
// notice) — the store on a 64 KiB tmpfs, mounted in a private mount namespace.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, requireBinary, runBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { needs } from "../fake/needs";

setDefaultTimeout(120_000);

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  fake.clear();
});

function home(extra = "") {
  const h = fakeHome(fake.url, extra);
  roots.push(join(h.home, ".."));
  return h;
}
const write = (content: string, mode = "replace") => toolCalls([{ name: "write", arguments: { path: "data.txt", content, mode } }]);
const sessionLogs = (h: { home: string }) =>
  readdirSafe(join(h.home, "state", "checkpoints", "sessions")).map((n) => n.replace(/\.jsonl$/, ""));
function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

test("the cap (checkpoints.max_bytes) prunes the oldest sessions' checkpoints first, never the one running", async () => {
  const h = home(`[checkpoints]\nmax_bytes = 1048576\n`);
  const ids: string[] = [];
  for (let run = 1; run <= 4; run++) {
    fake.queue(write(String(run).repeat(300 * 1024), run === 1 ? "create" : "replace"), text(`run ${run} done`));
    const r = await runBinary(["exec", "--yes", "--json", `change ${run}`], h.env, h.workspace);
    expect(r.code).toBe(0);
    ids.push(/"session_id":"(s-[0-9a-f]+)"/.exec(r.stdout)![1]!);
    await Bun.sleep(20); // distinct activity times
  }
  const left = sessionLogs(h);
  expect(left).not.toContain(ids[0]);
  expect(left).not.toContain(ids[1]);
  expect(left).toContain(ids[2]);
  expect(left).toContain(ids[3]);
  // The newest sessions can still undo their turn.
  const r = await runBinary(["sessions", "rewind", ids[3]!, "--to", "t0", "--files-only", "--yes"], h.env, h.workspace);
  expect(r.code).toBe(0);
  expect(readFileSync(join(h.workspace, "data.txt"), "utf8")).toBe("3".repeat(300 * 1024));
});

test.skipIf(!needs("mount namespace"))("a full disk while recording skips the checkpoint with a notice; the turn still succeeds", async () => {
  const h = home();
  const store = join(h.home, "state", "checkpoints");
  mkdirSync(store, { recursive: true });
  fake.queue(write("x".repeat(200 * 1024), "create"), text("wrote it"));
  const script = `mount -t tmpfs -o size=64k,mode=0700 tmpfs "$1" && exec "$2" exec --yes "write the data"`;
  const p = Bun.spawn(["unshare", "-m", "sh", "-c", script, "sh", store, requireBinary()], { cwd: h.workspace, env: h.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(code).toBe(0);
  expect(stdout).toContain("wrote it");
  expect(stderr).toContain("checkpoint skipped for t1 (the disk is full)");
  expect(readFileSync(join(h.workspace, "data.txt"), "utf8").length).toBe(200 * 1024);
  expect(existsSync(join(store, "objects"))).toBe(false); // the tmpfs went with its namespace
});
