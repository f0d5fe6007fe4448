// Inbound chat files and chat_attach through the real daemon with the dir channel (red team findings 4 and 9):
// a message naming system files, SCV_HOME files, `..` paths and symlinks out of the channel folder gets none of
// them copied; a media copy of a secret-like file is not sent; and chat_attach racing a parent directory swapped
// for a symlink into a secret location never sends the secret.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, startDaemon, waitForOut } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const inputText = (body: any): string => JSON.stringify(body.input ?? body.messages);

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: import("node:fs").Dirent[] = [];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) (e.isDirectory() ? walk : (p: string) => out.push(p))(join(d, e.name));
  };
  walk(dir);
  return out;
}

test("a message's files are taken only from inside the channel folder: no system, SCV_HOME, .. or symlinked-out file is copied", async () => {
  const b = makeBridge(fake.url);
  writeFileSync(join(b.home, "config.toml"), `${readFileSync(join(b.home, "config.toml"), "utf8")}\n# HOME-SECRET-MARKER\n`);
  mkdirSync(join(b.chat, "in"), { recursive: true });
  writeFileSync(join(b.chat, "ok.txt"), "fine to take");
  symlinkSync(join(b.home, "config.toml"), join(b.chat, "link-out"));
  symlinkSync("/proc/self/environ", join(b.chat, "environ-link"));
  fake.queue(text("got them"), text("got them too"));
  await startDaemon(b);
  const hostile = ["/etc/shadow", "/proc/self/environ", join(b.home, "config.toml"), "../../../../etc/passwd", "link-out", "environ-link", "ok.txt"];
  sendMessage(b, { from: "stranger", text: "take these", files: hostile });
  sendMessage(b, { from: "owner-1", text: "and these", files: hostile });
  await waitForOut(b, 2);
  const media = filesUnder(join(b.home, "state", "media"));
  expect(media.length).toBe(2); // ok.txt, once per sender
  for (const f of media) expect(readFileSync(f, "utf8")).toBe("fine to take");
  for (const r of fake.requests) {
    const prompt = inputText(r.body);
    expect(prompt).not.toContain("HOME-SECRET-MARKER");
    expect(prompt).toContain("is an absolute path");
    expect(prompt).toContain("leaves the channel folder");
    expect(prompt).toContain("link-out is outside the channel's folder");
    expect(prompt).toContain("environ-link is a system file");
  }
}, 30_000);

test("chat_attach of a media copy whose name is secret-like is refused", async () => {
  const b = makeBridge(fake.url);
  const media = join(b.home, "state", "media", "dir", "default", "0123456789abcdef");
  mkdirSync(media, { recursive: true });
  writeFileSync(join(media, "3fa9c1-id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----");
  fake.queue(toolCalls([{ name: "chat_attach", arguments: { path: join(media, "3fa9c1-id_rsa") } }]), text("tried"));
  await startDaemon(b);
  sendMessage(b, { text: "send me the key" });
  const [m] = await waitForOut(b, 1);
  expect(m!.files).toEqual([]);
  expect(inputText(fake.requests[1]!.body)).toContain("looks like it holds secrets");
}, 30_000);

test("chat_attach racing a parent directory swapped for a symlink into ~/.ssh never sends the secret", async () => {
  const b = makeBridge(fake.url);
  const docs = join(b.workspace, "docs");
  mkdirSync(docs);
  writeFileSync(join(docs, "report.txt"), "report");
  const ssh = join(b.env.HOME!, ".ssh");
  mkdirSync(ssh, { recursive: true });
  writeFileSync(join(ssh, "report.txt"), "SECRET-KEY-MATERIAL");
  const rounds = 40;
  for (let r = 0; r < rounds; r++) {
    fake.queue(toolCalls(Array.from({ length: 8 }, (_, i) => ({ name: "chat_attach", arguments: { path: "docs/report.txt" }, id: `call_${r}_${i}` }))));
  }
  fake.queue(text("done"));
  await startDaemon(b);
  // Flips docs between the real directory and a symlink to ~/.ssh as fast as renames go.
  symlinkSync(ssh, join(b.workspace, "docs.link"));
  const flip = `const fs = require("fs"); process.chdir(${JSON.stringify(b.workspace)});
    for (;;) { try { fs.renameSync("docs", "docs.real"); fs.renameSync("docs.link", "docs"); fs.renameSync("docs", "docs.link"); fs.renameSync("docs.real", "docs"); } catch {} }`;
  const swapper = Bun.spawn([process.execPath, "-e", flip], { stdout: "ignore", stderr: "ignore" });
  try {
    sendMessage(b, { text: "send the report many times" });
    const [m] = await waitForOut(b, 1, 60_000);
    for (const f of m!.files) expect(readFileSync(f, "utf8")).toBe("report");
  } finally {
    swapper.kill("SIGKILL");
    await swapper.exited;
  }
  const outputs = fake.requests.map((r) => inputText(r.body)).join("\n");
  expect(outputs).not.toContain("(19 bytes)");
  expect(outputs).toContain("attached report.txt (6 bytes)");
}, 90_000);
