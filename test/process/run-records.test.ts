import { afterAll, afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProcessRunner, newTag, RUN_TAG_VAR } from "../../src/process/index";
import { bootId } from "../../src/process/delegation-records";
import { identityOf } from "../../src/process/procfs";
import { reconcile } from "../../src/process/reconcile";
import { listRunRecords, type RunRecord, RunRecorder, runsDir } from "../../src/process/run-records";
import { alive, killAll } from "../fake/proc";

const root = mkdtempSync(join(tmpdir(), "scv-runrec-"));
const started: number[] = [];
afterEach(() => killAll(started.splice(0)));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const home = () => join(root, `home-${n++}`);
const files = (h: string) => (existsSync(runsDir(h)) ? readdirSync(runsDir(h)) : []);

test("the runner records a run before its child starts, with owner, group and tag, and removes it when cleaned up", async () => {
  const h = home();
  const runner = createProcessRunner({ scvHome: h });
  const proc = runner.start({ argv: ["sleep", "30"], cwd: root, env: { PATH: process.env.PATH }, stdin: "null", captureBytes: 1024 });
  started.push(proc.identity.pid);
  const [rec] = listRunRecords(h).map((r) => r.record);
  expect(rec).toMatchObject({
    run_tag: proc.tag,
    pid: proc.identity.pid,
    start_time: proc.identity.startTime,
    owner_pid: process.pid,
    owner_start_time: identityOf(process.pid)!.startTime,
    boot_id: bootId(),
    program: "sleep",
  });
  expect(readdirSync(runsDir(h))).toEqual([`${proc.tag}.json`]);
  proc.cancel();
  await proc.result;
  expect(files(h)).toEqual([]);
});

test("a records directory removed while SCV runs is made again for the next run", async () => {
  const h = home();
  const runner = createProcessRunner({ scvHome: h });
  const opts = { argv: ["true"], cwd: root, env: { PATH: process.env.PATH }, stdin: "null" as const, captureBytes: 1024 };
  await runner.run(opts);
  rmSync(join(h, "state"), { recursive: true });
  const proc = runner.start({ ...opts, argv: ["sleep", "30"] });
  started.push(proc.identity.pid);
  expect(files(h)).toEqual([`${proc.tag}.json`]);
  proc.cancel();
  await proc.result;
});

test("a run that cannot be recorded is not started, and the error says where and why", () => {
  const h = home();
  mkdirSync(join(h, "state"), { recursive: true });
  writeFileSync(runsDir(h), "a file where the directory should be");
  const runner = createProcessRunner({ scvHome: h });
  expect(() => runner.start({ argv: ["true"], cwd: root, env: {}, stdin: "null", captureBytes: 1024 })).toThrow(/cannot record the run in .*state\/runs.*not started/);
});

test("reconcile stops the group and tagged processes of a record whose owner is gone, and removes it", async () => {
  const h = home();
  const tag = newTag();
  // A group leader with a child that left the group but kept the tag, as a SIGKILLed SCV leaves them.
  const leader = Bun.spawn(["bash", "-c", "setsid sleep 30 & sleep 30"], {
    detached: true,
    env: { PATH: process.env.PATH, [RUN_TAG_VAR]: tag },
    stdio: ["ignore", "ignore", "ignore"],
  });
  started.push(leader.pid);
  const id = identityOf(leader.pid)!;
  const tagged = async () => {
    const out: number[] = [];
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`${RUN_TAG_VAR}=${tag}`) && alive(+name)) out.push(+name);
      } catch {}
    }
    return out;
  };
  for (let i = 0; i < 1250 && (await tagged()).length < 3; i++) await Bun.sleep(20); // up to 25 s
  const pids = await tagged();
  started.push(...pids);
  expect(pids.length).toBe(3);
  const dead: RunRecord = { run_tag: tag, pid: id.pid, start_time: id.startTime, owner_pid: 999_999_999, owner_start_time: "1", boot_id: bootId(), started_unix: 0 };
  const live: RunRecord = { ...dead, run_tag: newTag(), owner_pid: process.pid, owner_start_time: identityOf(process.pid)!.startTime };
  mkdirSync(runsDir(h), { recursive: true });
  writeFileSync(join(runsDir(h), `${dead.run_tag}.json`), JSON.stringify(dead));
  writeFileSync(join(runsDir(h), `${live.run_tag}.json`), JSON.stringify(live));

  const result = await reconcile(h, { graceMs: 500 });
  expect(result.runsStopped).toEqual([tag]);
  expect(pids.filter(alive)).toEqual([]);
  expect(files(h)).toEqual([`${live.run_tag}.json`]); // a live owner's record is left alone
  await leader.exited;
});

test("a record torn by a writer killed before its child started is removed once it is a minute old", async () => {
  const h = home();
  const recorder = new RunRecorder(runsDir(h));
  const open = recorder.begin(newTag(), "bash");
  recorder.finish(open);
  mkdirSync(runsDir(h), { recursive: true });
  const torn = join(runsDir(h), "0123456789abcdef.json");
  const fresh = join(runsDir(h), "fedcba9876543210.json");
  writeFileSync(torn, '{"run_tag":"0123');
  writeFileSync(fresh, '{"run_tag":"fedc');
  const old = Date.now() / 1000 - 120;
  utimesSync(torn, old, old);
  await reconcile(h);
  expect(files(h)).toEqual(["fedcba9876543210.json"]);
});
