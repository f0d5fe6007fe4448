// `bash` with `background: true` through the compiled binary: a loopback server started as a job runs past its
// call, its output is read while it runs, the session's limit is enforced, and it is gone when the session
// closes and within 2 s of a SIGKILL of SCV.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary, runBinary } from "../fake/binary";
import { hang, text, toolCalls } from "../fake/model-server";
import { openTerminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);
const fake = fakeModelForEachTest();

/** The servers listen on loopback where the test reaches them; a sandboxed command has no network unless this is set. */
const NETWORK = "[sandbox]\nnetwork = true\n";

/** A small loopback HTTP server in Node (on CI's machines), printing a line once it listens. */
function serverCommand(port: number): string {
  return `node -e "require('http').createServer((q,s)=>s.end('pong')).listen(${port},'127.0.0.1',()=>console.log('listening on ${port}'))"`;
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

async function answers(port: number): Promise<boolean> {
  try {
    return (await (await fetch(`http://127.0.0.1:${port}/`)).text()) === "pong";
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(50);
  }
  return check();
}

/** The tool results of the turn, in order, as the last request carried them (each request resends the history). */
function toolOutputs(): string[] {
  const last = fake.requests[fake.requests.length - 1]!;
  return (last.body?.input ?? []).filter((i: any) => i.type === "function_call_output").map((i: any) => String(i.output));
}

describe("background commands", () => {
  test("a server runs past its call, its output is readable while it runs, and it is stopped when the session closes", async () => {
    const port = await freePort();
    let servedDuringTurn = false;
    const h = fakeHome(fake.url, NETWORK);
    fake.queue(toolCalls([{ name: "bash", arguments: { command: serverCommand(port), background: true } }]));
    // The model looks at the job after the server has had time to print its line; meanwhile the test calls it.
    fake.queue(toolCalls([{ name: "bash", arguments: { command: "sleep 1" } }]));
    fake.queue(toolCalls([{ name: "agent_status", arguments: { job: "job-1" } }]));
    fake.queue(text("the server is up"));
    const run = runBinary(["exec", "--yes", "start the dev server"], h.env, h.workspace);
    servedDuringTurn = await until(() => answers(port), 20_000);
    const r = await run;
    expect(r.code).toBe(0);
    expect(servedDuringTurn).toBe(true);
    const [started, , status] = toolOutputs();
    expect(JSON.parse(started!)).toMatchObject({ job: "job-1", status: "running" });
    const view = JSON.parse(status!);
    expect(view).toMatchObject({ job: "job-1", agent: "bash", status: "running" });
    expect(view.output_tail).toContain(`listening on ${port}`);
    expect(r.stderr).toContain("&");
    // exec ended, so its session closed: the server is gone and its log folder with it.
    expect(await answers(port)).toBe(false);
    const jobsDir = join(h.env.SCV_HOME!, "jobs");
    expect(existsSync(jobsDir) ? readdirSync(jobsDir) : []).toEqual([]);
  });

  test("sandboxed with no network: the session's commands share one loopback, so the next call reaches the job's server; the host does not", async () => {
    const port = await freePort();
    const h = fakeHome(fake.url);
    fake.queue(toolCalls([{ name: "bash", arguments: { command: serverCommand(port), background: true } }]));
    fake.queue(toolCalls([{ name: "bash", arguments: { command: `for i in $(seq 200); do curl -s http://127.0.0.1:${port}/ && break; sleep 0.05; done; echo; curl -s -m 2 http://example.com/ || echo no-internet` } }]));
    fake.queue(text("reached"));
    const run = runBinary(["exec", "--yes", "start the dev server and call it"], h.env, h.workspace);
    // From outside the session (this test, on the host's loopback) the server is never there.
    let reachedFromHost = false;
    while (!reachedFromHost && fake.requests.length < 3) {
      reachedFromHost = await answers(port);
      await Bun.sleep(50);
    }
    const r = await run;
    expect(r.code).toBe(0);
    expect(reachedFromHost).toBe(false);
    const [started, called] = toolOutputs();
    expect(JSON.parse(started!)).toMatchObject({ job: "job-1", status: "running" });
    expect(called).toContain("pong");
    expect(called).toContain("no-internet");
  });

  test("a command that ends is reported with its output; past the per-session limit the call is refused naming the running ones", async () => {
    const h = fakeHome(fake.url, "[tools]\nmax_background_commands = 1\n");
    fake.queue(
      toolCalls([{ name: "bash", arguments: { command: "sleep 30", background: true } }]),
      toolCalls([{ name: "bash", arguments: { command: "echo second", background: true } }]),
      toolCalls([{ name: "agent_cancel", arguments: { job: "job-1" } }]),
      toolCalls([{ name: "bash", arguments: { command: "echo finished-output; exit 3", background: true } }]),
      toolCalls([{ name: "agent_wait", arguments: { job: "job-2", timeout_seconds: 20 } }]),
      text("done"),
    );
    const r = await runBinary(["exec", "--yes", "go"], h.env, h.workspace);
    expect(r.code).toBe(0);
    const outputs = toolOutputs();
    expect(outputs[1]).toContain("1 background commands are already running (tools.max_background_commands = 1): job-1 (`sleep 30`)");
    expect(JSON.parse(outputs[2]!)).toMatchObject({ job: "job-1", status: "cancelled" });
    const waited = JSON.parse(outputs[4]!);
    expect(waited).toMatchObject({ job: "job-2", status: "failed", result: { exit_code: 3 } });
    expect(waited.result.reply).toContain("finished-output");
  });

  test("a SIGKILL of SCV leaves no background command running after 2 s", async () => {
    const port = await freePort();
    const h = fakeHome(fake.url, NETWORK);
    fake.queue(toolCalls([{ name: "bash", arguments: { command: serverCommand(port), background: true } }]), hang());
    const proc = Bun.spawn([requireBinary(), "exec", "--yes", "serve"], { cwd: h.workspace, env: h.env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    try {
      expect(await until(() => answers(port), 20_000)).toBe(true);
      proc.kill("SIGKILL");
      await proc.exited;
      const gone = await until(async () => !(await answers(port)), 2000);
      expect(gone).toBe(true);
    } finally {
      proc.kill("SIGKILL");
    }
  });
});

describe.skipIf(!needs("tmux"))("kept background commands", () => {
  test("keep = true in the owner's session: it outlives the session (/new), scv agents ps lists it, scv agents kill stops it", async () => {
    const port = await freePort();
    const h = fakeHome(fake.url, NETWORK);
    fake.queue(toolCalls([{ name: "bash", arguments: { command: serverCommand(port), background: true, keep: true } }]), text("serving"));
    const term = openTerminal([requireBinary(), "--yes"], { env: h.env, cwd: h.workspace, width: 120, height: 40 });
    try {
      await term.waitFor(/s-[0-9a-f]{8}/);
      term.type("serve the site");
      term.keys("Enter");
      await term.waitFor("serving");
      expect(await until(() => answers(port), 20_000)).toBe(true);
      term.type("/new");
      term.keys("Enter");
      await term.waitFor(/session s-[0-9a-f]{8}[\s\S]*session s-[0-9a-f]{8}/);
      await Bun.sleep(500);
      expect(await answers(port)).toBe(true); // the session closed; the kept command did not
      const ps = await runBinary(["agents", "ps", "--json"], h.env, h.workspace);
      const kept = JSON.parse(ps.stdout).delegations.filter((d: any) => d.kind === "command");
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatchObject({ agent: "bash", state: "running" });
      const killed = await runBinary(["agents", "kill", kept[0].handle], h.env, h.workspace);
      expect(killed.code).toBe(0);
      expect(await until(async () => !(await answers(port)), 20_000)).toBe(true);
    } finally {
      term.close();
    }
  });
});
