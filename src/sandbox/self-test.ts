// `scv doctor`'s self-test: the launcher confines a short script that tries a write outside its workspace, a
// read of a hidden file, a connect to a loopback listener and a signal to SCV (the doctor itself, by its pid on
// the host), in a throwaway directory; each is reported blocked or not. Nothing outside that directory is touched.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSandboxed, type SandboxSettings } from "./index";

export interface SelfTestResult {
  what: string;
  blocked: boolean;
}

export async function sandboxSelfTest(settings: SandboxSettings): Promise<SelfTestResult[]> {
  // Outside $TMPDIR where possible: the sandbox shows its own /tmp, and the test should meet the rules, not a missing path.
  const root = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "scv-sandbox-selftest-"));
  let connections = 0;
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: () => void connections++, data: () => {} } });
  try {
    const ws = join(root, "ws");
    const outside = join(root, "outside");
    const secret = join(root, "secret");
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(secret, "SELFTEST-SECRET\n");
    const script = [
      `echo x > ${outside}/written`,
      `cat ${secret} > read`,
      `echo x > /dev/tcp/127.0.0.1/${listener.port}`,
      `kill -0 ${process.pid} && touch signalled`,
      "true",
    ].join(" 2>/dev/null; ");
    const r = await runSandboxed(
      { argv: ["/bin/bash", "-c", script], cwd: ws, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdin: "null", timeoutMs: 15_000, captureBytes: 4096, combined: true },
      { ...settings, workspace: ws, writableRoots: [], hidden: [...settings.hidden, secret] },
    );
    if (r.kind === "launch-failed") throw new Error(`the self-test script did not run: ${r.why}`);
    if (r.exitCode !== 0) throw new Error(`the self-test script did not run: ${(r.combined ?? r.stdout).text.trim() || `exit ${r.exitCode}`}`);
    await Bun.sleep(50); // a connection being accepted
    const read = join(ws, "read");
    return [
      { what: "a write outside the workspace", blocked: !existsSync(join(outside, "written")) },
      { what: "a read of a hidden path", blocked: !(existsSync(read) && readFileSync(read, "utf8").includes("SELFTEST-SECRET")) },
      { what: "a connect to 127.0.0.1", blocked: connections === 0 },
      { what: "a signal to SCV", blocked: !existsSync(join(ws, "signalled")) },
    ];
  } finally {
    listener.stop(true);
    rmSync(root, { recursive: true, force: true });
  }
}
