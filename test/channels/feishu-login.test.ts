// `scv channels login|logout feishu` and the owner hint, run as the compiled binary against the fake Feishu
// server: the QR registration, an existing app's secret typed without echo (in tmux, as a person would), a
// wrong secret, and the stored file's mode. No secret may appear in any output.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireBinary } from "../fake/binary";
import { openTerminal, type Terminal } from "../fake/tmux";
import { startFakeFeishu, type FakeFeishu } from "../fake/feishu-server";
import { waitFor } from "./helpers";

let fake: FakeFeishu;
let root: string;
let home: string;
let env: Record<string, string>;
let terminal: Terminal | undefined;

beforeEach(async () => {
  fake = await startFakeFeishu();
  root = mkdtempSync(join(tmpdir(), "scv-feishu-login-"));
  home = join(root, "scv");
  mkdirSync(home);
  writeFileSync(join(home, "config.toml"), `[channels.feishu]\ndomain = "${fake.url}"\n`);
  env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, SCV_HOME: home, NO_COLOR: "1" };
});
afterEach(async () => {
  terminal?.close();
  terminal = undefined;
  await fake.close();
  rmSync(root, { recursive: true, force: true });
});

async function scv(args: string[], stdin?: string) {
  const p = Bun.spawn([requireBinary(), "channels", ...args], { env, stdin: stdin === undefined ? "ignore" : new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, stdout, stderr, all: stdout + stderr };
}

const stored = () => JSON.parse(readFileSync(join(home, "channels", "feishu", "default.json"), "utf8"));

test("login by QR code stores the app, its secret and the owner (0600, never printed); logout removes them", async () => {
  const r = await scv(["login", "feishu"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/[▀▄█]{10}/); // the QR code, drawn in the terminal
  expect(r.stdout).toContain("https://accounts.example.test/verify?code=ABCD-EFGH&from=sdk&tp=sdk");
  expect(r.stdout).toContain(`Signed in: Feishu app ${fake.appId}, owner ${fake.registration.openId}`);
  expect(r.stderr).toContain("waiting for the scan");
  expect(r.all).not.toContain(fake.appSecret);
  expect(stored()).toMatchObject({ app_id: fake.appId, app_secret: fake.appSecret, owner_open_id: fake.registration.openId });
  expect(statSync(join(home, "channels", "feishu", "default.json")).mode & 0o777).toBe(0o600);
  expect(statSync(join(home, "channels", "feishu")).mode & 0o777).toBe(0o700);
  expect(fake.requests.filter((p) => p.endsWith("/oauth/v1/app/registration")).length).toBe(1 + fake.registration.pollsUntilDone);

  const list = await scv(["list"]);
  expect(list.stdout).toContain(`feishu/default  owner ${fake.registration.openId}`);
  expect(list.all).not.toContain(fake.appSecret);

  const out = await scv(["logout", "feishu"]);
  expect(out.code).toBe(0);
  expect(out.stdout).toContain("Removed the stored Feishu credentials");
  expect(existsSync(join(home, "channels", "feishu", "default.json"))).toBe(false);
  const after = await scv(["status"]);
  expect(after.stdout).toContain("feishu/default  stopped");
  expect(after.stdout).toContain("every Feishu chat is tool-free: run `scv channels login feishu`, or set owner_open_id");
});

test("login --app-id refuses a wrong secret clearly and stores nothing; unknown options are refused", async () => {
  const r = await scv(["login", "feishu", "--app-id", fake.appId], "wrong-secret-123\n");
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`Feishu rejected the app credentials for ${fake.appId} (code 10014`);
  expect(r.all).not.toContain("wrong-secret-123");
  expect(existsSync(join(home, "channels", "feishu", "default.json"))).toBe(false);
  const bad = await scv(["login", "feishu", "--bogus"]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('unknown option "--bogus"');
  expect((await scv(["login", "telegram"])).stderr).toContain("scv channels login feishu");
  const account = await scv(["logout", "feishu", "--account", "../x"]);
  expect([account.code, account.stderr.trim()]).toEqual([1, "scv channels logout: --account: use 1-64 letters, digits, _ and -"]);
});

test("login --app-id in a terminal: the secret is read without echo, then the owner's first direct message records them", async () => {
  // The shared terminal harness: its own tmux server with the socket under the test's temp dir, and the exit
  // status printed by a shell (tmux's own dead-pane flag can lag).
  const t = (terminal = openTerminal([requireBinary(), "channels", "login", "feishu", "--app-id", fake.appId], { env, cwd: root, width: 160, height: 50 }));
  const pane = () => t.screen();
  await waitFor(() => pane().includes(`App secret for ${fake.appId}:`), 10_000, "the secret prompt");
  t.type(fake.appSecret);
  t.keys("Enter");
  await waitFor(() => pane().includes("send the bot a direct message"), 10_000, `the owner prompt; pane:\n${pane()}`);
  expect(stored()).toMatchObject({ app_id: fake.appId, app_secret: fake.appSecret });
  expect(stored().owner_open_id).toBeUndefined();
  await waitFor(() => fake.connections() > 0, 10_000, "the login's long connection");
  fake.push(fake.messageEvent({ message_id: "om_claim", chat_id: "oc_p2p", sender: "ou_newowner123456", content: { text: "it is me" } }));
  await waitFor(() => pane().includes("Owner recorded: ou_newowner123456"), 10_000, `the owner to be recorded; pane:\n${pane()}`);
  expect(stored().owner_open_id).toBe("ou_newowner123456");
  expect(pane()).not.toContain(fake.appSecret);
  await waitFor(() => fake.acks.length === 1, 25_000, "the claim message to be acknowledged");
  // The command ends by itself once the owner is recorded (nothing keeps it waiting), with status 0.
  expect(await t.exitCode(10_000)).toBe(0);
}, 30_000);
