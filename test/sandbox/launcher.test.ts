// The launcher itself (from source): Landlock alone, as on a machine without namespaces, and its failures, which
// never run the command. Targets live in a throwaway directory outside $TMPDIR.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LAUNCHER_FAILED_EXIT, type SandboxPolicy } from "../../src/sandbox/policy";

const root = mkdtempSync(join("/var/tmp", "scv-sandbox-launcher-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const entry = join(import.meta.dir, "..", "..", "src", "sandbox", "launcher-entry.ts");

function launch(policy: Partial<SandboxPolicy> | string, argv: string[]) {
  const text = typeof policy === "string" ? policy : JSON.stringify(policy);
  const r = Bun.spawnSync([process.execPath, entry, "__sandbox", text, ...argv], { cwd: "/", env: { PATH: process.env.PATH! }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

test("Landlock alone (no namespaces): writes stay in the workspace's folders and TMPDIR; .git, hidden paths and the rest are refused", () => {
  const ws = join(root, "ws");
  const tmp = join(root, "tmp");
  for (const d of [ws, join(ws, "src"), join(ws, ".git"), tmp, join(root, "out")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(root, "secret"), "SECRET\n");
  const policy: SandboxPolicy = {
    mode: "workspace-write",
    cwd: ws,
    workspace: ws,
    sealed: [],
    protect: [join(ws, ".git"), join(ws, ".scv")],
    writableRoots: [],
    hidden: [join(root, "secret")],
    network: false,
    tmpdir: tmp,
    expect: { namespaces: false, landlock: true },
  };
  const script = [
    "echo ok > src/a && echo src-ok",
    'echo ok > "$TMPDIR/t" && echo tmp-ok',
    "echo x > .git/config || echo git-refused",
    "echo x > ../out/w || echo outside-refused",
    "cat ../secret || echo secret-refused",
    "kill -0 $PPID 2>/dev/null || echo signal-refused",
    "echo x > top-level || echo top-level-refused",
  ].join("; ");
  const r = launch(policy, ["/bin/bash", "-c", script]);
  expect(r.code).toBe(0);
  expect(r.out.trim().split("\n")).toEqual(["src-ok", "tmp-ok", "git-refused", "outside-refused", "secret-refused", "signal-refused", "top-level-refused"]);
  expect(existsSync(join(root, "out", "w"))).toBe(false);
});

test("a launcher that cannot apply the policy says why and never runs the command", () => {
  const marker = join(root, "ran");
  const bad = launch("{not json", ["/bin/sh", "-c", `touch ${marker}`]);
  expect(bad.code).toBe(LAUNCHER_FAILED_EXIT);
  expect(bad.err).toStartWith("scv sandbox: the command was not run: ");
  const missing = launch({ mode: "workspace-write", cwd: "/nonexistent-dir", workspace: "/nonexistent-dir", protect: [], sealed: [], writableRoots: [], hidden: [], network: false, tmpdir: root, expect: { namespaces: false, landlock: true } }, ["/bin/sh", "-c", `touch ${marker}`]);
  expect(missing.code).toBe(LAUNCHER_FAILED_EXIT);
  expect(missing.err).toContain("chdir to /nonexistent-dir failed");
  const noProgram = launch({ mode: "read-only", cwd: root, workspace: root, protect: [], sealed: [], writableRoots: [], hidden: [], network: false, tmpdir: root, expect: { namespaces: false, landlock: true } }, ["/nonexistent-program"]);
  expect(noProgram.code).toBe(LAUNCHER_FAILED_EXIT);
  expect(noProgram.err).toContain("executing /nonexistent-program failed (ENOENT)");
  expect(existsSync(marker)).toBe(false);
});

test("a private temporary directory an SCV killed mid-command left behind is removed by the next reconcile; a live one is not", async () => {
  const { tmpdir } = await import("node:os");
  const { sandboxSettings, startSandboxed } = await import("../../src/sandbox");
  const { reconcile } = await import("../../src/process/reconcile");
  // A dead owner: PID 2^22 - 1 does not run here (and its start time cannot match).
  const stale = join(tmpdir(), `scv-sandbox.4194303-1.deadbeefdeadbeef.scv-tmp`);
  mkdirSync(join(stale, "left"), { recursive: true });
  const ws = join(root, "sweep-ws");
  mkdirSync(ws, { recursive: true });
  const settings = sandboxSettings({ mode: "workspace-write", writable_roots: [], hidden_paths: [], network: false, auto_run: true, required: false, allow_unix_sockets: [] }, { workspace: ws, home: join(root, "h"), scvHome: join(root, "s"), env: {} })!;
  // Runs until cancelled below, however slow the reconcile is on a busy machine; its directory exists from the start.
  const running = startSandboxed({ argv: ["/bin/sh", "-c", "sleep 60"], cwd: ws, env: { PATH: process.env.PATH! }, stdin: "null", captureBytes: 4096, combined: true }, settings);
  const mine = (await import("node:fs")).readdirSync(tmpdir()).filter((n) => n.startsWith(`scv-sandbox.${process.pid}-`));
  expect(mine.length).toBe(1);
  await reconcile(join(root, "s"));
  expect(existsSync(stale)).toBe(false);
  expect(existsSync(join(tmpdir(), mine[0]!))).toBe(true); // its owner (this process) runs
  running.cancel();
  const ended = await running.result;
  expect(ended.kind === "ran" && ended.cancelled).toBe(true);
  expect(existsSync(join(tmpdir(), mine[0]!))).toBe(false); // removed with its run
});

test("a launch failure reaches the caller typed (kind launch-failed, the launcher's reason), never as an exit status to decode", async () => {
  const { runSandboxed, sandboxSettings } = await import("../../src/sandbox");
  const ws = join(root, "typed-ws");
  mkdirSync(ws, { recursive: true });
  const settings = sandboxSettings({ mode: "workspace-write", writable_roots: [], hidden_paths: [], network: false, auto_run: true, required: false, allow_unix_sockets: [] }, { workspace: ws, home: join(root, "h"), scvHome: join(root, "s"), env: {} })!;
  const opts = { cwd: ws, env: { PATH: process.env.PATH! }, stdin: "null" as const, captureBytes: 4096, combined: true };
  const failed = await runSandboxed({ ...opts, argv: ["/nonexistent-program"] }, settings);
  expect(failed).toMatchObject({ kind: "launch-failed" });
  expect(failed.kind === "launch-failed" && failed.why).toBe("the command was not run: executing /nonexistent-program failed (ENOENT)");
  // The command's own exit 125 is the command's: it ran.
  const own = await runSandboxed({ ...opts, argv: ["/bin/sh", "-c", "echo failed >&2; exit 125"] }, settings);
  expect(own.kind === "ran" && own.exitCode).toBe(125);
});
