// `scv channels login wechat` through the compiled binary, without a daemon: the QR code drawn on a terminal
// (a pseudo-terminal from util-linux `script`), the code WeChat asks for when nobody can type it.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeIlink, startFakeIlink } from "../../fake/ilink-server";
import { requireBinary } from "../../fake/binary";
import { needs } from "../../fake/needs";

let ilink: FakeIlink | undefined;
let root = "";
afterEach(async () => {
  await ilink?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function setup() {
  ilink = await startFakeIlink();
  root = mkdtempSync(join(tmpdir(), "scv-wechat-login-"));
  writeFileSync(join(root, "config.toml"), `[channels.wechat]\nbase_url = "${ilink.url}"\ncdn_base_url = "${ilink.cdnUrl}"\n`);
  return { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, SCV_HOME: root, TERM: "xterm" } };
}

async function run(cmd: string[], env: Record<string, string>) {
  const p = Bun.spawn(cmd, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out: stdout + stderr };
}

test.skipIf(!needs("script"))("on a terminal the QR code is drawn, and its link printed", async () => {
  const { env } = await setup();
  ilink!.loginScripts = [["scaned", "confirmed"]];
  const r = await run([Bun.which("script")!, "-qec", `${requireBinary()} channels login wechat`, "/dev/null"], env);
  expect(r.code).toBe(0);
  // The code drawn is the link's own QR code (rendered here independently by the same encoder).
  const { renderUnicodeCompact } = await import("uqr");
  expect(r.out.replaceAll("\r\n", "\n")).toContain(renderUnicodeCompact("https://liteapp.weixin.qq.com/q/fake1", { border: 2 }));
  expect(r.out).toContain("https://liteapp.weixin.qq.com/q/fake1");
  expect(r.out).toContain("logged in to WeChat");
  expect(r.out).not.toContain(ilink!.token);
}, 30_000);

test("without a terminal no QR is drawn; a verification code nobody can type ends with what to do", async () => {
  const { env } = await setup();
  ilink!.loginScripts = [["need_verifycode"]];
  const r = await run([requireBinary(), "channels", "login", "wechat"], env);
  expect(r.code).toBe(1);
  expect(r.out).toContain("https://liteapp.weixin.qq.com/q/fake1");
  expect(r.out).not.toContain("█");
  expect(r.out).toContain("run `scv channels login wechat` in a terminal to type them");
  expect(existsSync(join(root, "state", "channels", "wechat", "default", "login.json"))).toBe(false);
  const unknown = await run([requireBinary(), "channels", "login", "wechat", "--bogus"], env);
  expect(unknown.code).toBe(2);
  expect(unknown.out).toContain('unknown option "--bogus"');
  const feishuOnly = await run([requireBinary(), "channels", "login", "wechat", "--brand", "lark"], env);
  expect(feishuOnly.code).toBe(2);
  expect(feishuOnly.out).toContain("--brand is for feishu");
}, 30_000);
