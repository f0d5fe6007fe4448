// The chat_* tools in a session a chat bridge started: chat_attach's refusals (including files swapped after
// the check), chat_history's search, episodes and paging, chat_keep's collisions and cross-disk move.
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchLog } from "../../src/chatlog/history";
import { ChatLog } from "../../src/chatlog/log";
import { conversationMediaDir, outboxMediaDir } from "../../src/chatlog/paths";
import { expireMedia } from "../../src/channels/core/media";
import { copyForChat, createChatAttachTool } from "../../src/tools/chat_attach";
import { createChatHistoryTool } from "../../src/tools/chat_history";
import { createChatKeepTool } from "../../src/tools/chat_keep";
import { buildTools } from "../../src/tools/index";
import { invokeTool, makeCallContext, makeScope, type FakeScope } from "../fake/scope";
import { needs } from "../fake/needs";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

let n = 0;
function chatSession(opts: { logRoot?: string } = {}) {
  const root = mkdtempSync(join(tmpdir(), "scv-chat-"));
  roots.push(root);
  const home = join(root, "home");
  mkdirSync(home);
  const scope: FakeScope = makeScope({ env: { HOME: home } });
  const conversation = `owner-${process.pid}-${++n}`;
  const log = join(opts.logRoot ?? root, "archive", "dir", "default", conversation);
  scope.channel = { kind: "dir", account: "default", conversation, log };
  const media = conversationMediaDir(scope.scvHome, { kind: "dir", account: "default", conversation });
  mkdirSync(media, { recursive: true });
  roots.push(media);
  return { root, home, scope, log, media };
}

describe("which sessions offer the chat tools", () => {
  test("a chat owner's session has all three; a session without a channel none; without a log only chat_attach", () => {
    const { scope } = chatSession();
    expect(buildTools(scope, { enabled: true }).list().map((t) => t.name)).toEqual(expect.arrayContaining(["chat_attach", "chat_history", "chat_keep"]));
    expect(buildTools(scope, { enabled: false }).list()).toEqual([]);
    const plain = makeScope();
    expect(buildTools(plain, { enabled: true }).get("chat_attach")).toBeUndefined();
    const noLog = makeScope();
    noLog.channel = { kind: "dir", account: "default", conversation: "x" };
    const names = buildTools(noLog, { enabled: true }).list().map((t) => t.name);
    expect(names).toContain("chat_attach");
    expect(names).not.toContain("chat_history");
  });
});

describe("chat_attach", () => {
  const attach = async (scope: FakeScope, args: unknown) => invokeTool(createChatAttachTool(scope)!, args, makeCallContext(scope));

  test("copies a file into the outbox (0600) and reports the copy for the bridge", async () => {
    const { scope } = chatSession();
    writeFileSync(join(scope.workspace, "chart.png"), "PNGDATA");
    const r = await attach(scope, { path: "chart.png", caption: "Sales by month" });
    expect(r.risk).toBe("network");
    expect(r.result.ok).toBe(true);
    const ev = r.result.event!.chat_attachment as { path: string; name: string; caption: string };
    expect(ev.name).toBe("chart.png");
    expect(ev.caption).toBe("Sales by month");
    expect(ev.path.startsWith(`${outboxMediaDir(scope.scvHome)}/`)).toBe(true);
    expect(readFileSync(ev.path, "utf8")).toBe("PNGDATA");
    expect(statSync(ev.path).mode & 0o777).toBe(0o600);
    unlinkSync(ev.path);
  });

  test("every refusal in the list, after resolving symlinks", async () => {
    const SECRET = /looks like it holds secrets/;
    const { scope, home, media } = chatSession();
    const ws = scope.workspace;
    const put = (p: string, content = "x") => {
      mkdirSync(join(p, ".."), { recursive: true });
      writeFileSync(p, content);
      return p;
    };
    mkdirSync(join(ws, "adir"));
    put(join(ws, "empty.txt"), "");
    const big = join(ws, "big.bin");
    const fd = openSync(big, "w");
    ftruncateSync(fd, 25 * 1024 * 1024 + 1);
    closeSync(fd);
    const cases: [string, RegExp][] = [
      [join(ws, "missing.txt"), /does not exist/],
      [join(ws, "adir"), /not a regular file/],
      [join(ws, "empty.txt"), /is empty/],
      [big, /at most 25 MiB/],
      [put(join(scope.scvHome, "settings.toml")), /SCV instance directory/],
      [put(join(outboxMediaDir(scope.scvHome), "queued.bin")), /SCV instance directory/],
      [put(join(home, ".ssh", "config")), SECRET],
      [put(join(home, ".gnupg", "pubring.kbx")), SECRET],
      [put(join(home, ".aws", "config")), SECRET],
      [put(join(home, ".kube", "config")), SECRET],
      [put(join(home, ".docker", "config.json")), SECRET],
      [put(join(home, ".netrc")), SECRET],
      [put(join(home, ".npmrc")), SECRET],
      [put(join(home, ".pypirc")), SECRET],
      [put(join(home, ".cargo", "credentials.toml")), SECRET],
      [put(join(home, ".config", "gh", "hosts.yml")), SECRET],
      [put(join(home, ".config", "gcloud", "x.json")), SECRET],
      [put(join(home, ".config", "hub")), SECRET],
      [put(join(home, ".mozilla", "firefox", "cookies.sqlite")), SECRET],
      [put(join(home, ".config", "google-chrome", "Default", "Cookies")), SECRET],
      [put(join(home, ".password-store", "bank.gpg")), SECRET],
      [put(join(home, ".local", "share", "keyrings", "login.keyring")), SECRET],
      [put(join(home, ".codex", "auth.json")), SECRET],
      [put(join(home, ".claude", "settings.json")), SECRET],
      [put(join(home, ".claude.json")), SECRET],
      [put(join(home, ".grok", "x")), SECRET],
      [put(join(home, ".scv", "config.toml")), SECRET],
      ["/proc/self/status", SECRET],
      ["/etc/shadow", SECRET],
      ["/dev/null", SECRET],
      [put(join(ws, ".env")), SECRET],
      [put(join(ws, "prod.env")), SECRET],
      [put(join(ws, "aws_credentials.txt")), SECRET],
      [put(join(ws, "my_private_key.txt")), SECRET],
      [put(join(ws, "cert.pem")), SECRET],
      [put(join(ws, "server.key")), SECRET],
      [put(join(ws, "bundle.p12")), SECRET],
      [put(join(ws, "bundle.pfx")), SECRET],
      [put(join(ws, "vault.kdbx")), SECRET],
      [put(join(ws, "id_ed25519")), SECRET],
    ];
    // A harmless name in the workspace that links to a key: refused after resolving.
    symlinkSync(join(home, ".ssh", "config"), join(ws, "notes.txt"));
    cases.push([join(ws, "notes.txt"), SECRET]);
    for (const [path, why] of cases) {
      const r = await attach(scope, { path });
      expect({ path, ok: r.result.ok }).toEqual({ path, ok: false });
      expect({ path, out: r.result.output }).toEqual({ path, out: expect.stringMatching(why) });
    }
    // What chat users sent is sendable even though it lives in SCV_HOME.
    const sent = put(join(media, "abc123-photo.jpg"), "JPEG");
    const ok = await attach(scope, { path: sent });
    expect(ok.result.ok).toBe(true);
    unlinkSync((ok.result.event!.chat_attachment as { path: string }).path);
  });

  test("the file opened is the file checked and sent: a symlink or a parent directory swapped in after the open changes nothing", () => {
    const { scope, home } = chatSession();
    const docs = join(scope.workspace, "docs");
    mkdirSync(docs);
    const target = join(docs, "report.txt");
    writeFileSync(target, "report");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "report.txt"), "SECRET KEY");
    const sentText = (c: { path: string }) => {
      const text = readFileSync(c.path, "utf8");
      unlinkSync(c.path);
      return text;
    };
    // The final component becomes a symlink to a secret after the open.
    const a = copyForChat(target, scope, {
      afterOpen(path) {
        renameSync(path, `${path}.moved`);
        symlinkSync(join(home, ".ssh", "report.txt"), path);
      },
    });
    expect(sentText(a)).toBe("report");
    unlinkSync(target);
    renameSync(`${target}.moved`, target);
    // A parent directory becomes a symlink into a secret location after the open.
    const b = copyForChat("docs/report.txt", scope, {
      afterOpen() {
        renameSync(docs, `${docs}.real`);
        symlinkSync(join(home, ".ssh"), docs);
      },
    });
    expect(sentText(b)).toBe("report");
    // And a path that already leads into the secret location is refused by where the opened file really is.
    expect(() => copyForChat("docs/report.txt", scope)).toThrow(/looks like it holds secrets/);
  });

  test("a media copy of a secret-like file is refused by the name the sender gave it", async () => {
    const { scope } = chatSession();
    const media = join(scope.scvHome, "state", "media", "dir", "default", "c0ffee00");
    mkdirSync(media, { recursive: true });
    writeFileSync(join(media, "3fa9c1-id_rsa"), "KEY");
    const r = await attach(scope, { path: join(media, "3fa9c1-id_rsa") });
    expect(r.result.ok).toBe(false);
    expect(r.result.output).toContain("looks like it holds secrets");
  });

  test("a caption over 1 KiB is refused before anything is copied", async () => {
    const { scope } = chatSession();
    writeFileSync(join(scope.workspace, "a.txt"), "a");
    const r = await attach(scope, { path: "a.txt", caption: "x".repeat(1025) });
    expect(r.result.ok).toBe(false);
    expect(r.result.output).toContain("at most 1024 bytes");
  });
});

describe("chat_history", () => {
  function seeded() {
    const s = chatSession();
    const log = new ChatLog(s.log);
    const at = (d: string) => new Date(d);
    log.add({ author: "owner", text: "the blue door needs paint" }, at("2026-09-01T10:00:00"));
    log.add({ author: "scv", text: "Which blue?" }, at("2026-09-01T10:00:05"));
    log.end();
    log.add({ author: "owner", text: "photo attached", files: [{ name: "blue-door.jpg", path: join(s.media, "aaaaaa-blue-door.jpg"), state: "saved" }] }, at("2026-09-10T09:00:00"));
    log.add({ author: "owner", text: "voice", transcript: "paint the Blue DOOR red" }, at("2026-09-10T09:01:00"));
    log.add({ author: "owner", text: "quoted", quote: "blue door" }, at("2026-09-10T09:02:00"));
    log.end();
    const start = at("2026-09-26T14:04:05").getTime();
    for (let i = 0; i < 40; i++) log.add({ author: i % 2 ? "scv" : "owner", text: `message ${i}` }, new Date(start + i * 1000));
    return s;
  }
  const history = async (scope: FakeScope, args: unknown, limit?: number) => {
    const r = await invokeTool(createChatHistoryTool(scope)!, args, makeCallContext(scope, limit ? { outputLimitBytes: limit } : {}));
    return { ...r, json: r.result.ok ? JSON.parse(r.result.output) : undefined };
  };

  test("search matches every word in text, quotes, file names and transcripts, newest first, with paging", async () => {
    const { scope } = seeded();
    const r = await history(scope, { action: "search", query: "BLUE door" });
    expect(r.risk).toBe("read_only");
    // Newest first: the quote, the transcript, the file name, then the older episode's text.
    expect(r.json.results.map((m: any) => [m.episode.slice(-19, -9), m.index])).toEqual([
      ["2026-09-10", 2],
      ["2026-09-10", 1],
      ["2026-09-10", 0],
      ["2026-09-01", 0],
    ]);
    expect(r.json.results[3]).toMatchObject({ author: "owner", excerpt: "the blue door needs paint" });
    expect(r.json.results.at(-1).episode).toMatch(/^2026\/2026-08-31_2026-09-06\/2026-09-01T10-00-00$/);
    expect(r.json.more).toBeUndefined();
    const page = await history(scope, { action: "search", query: "blue door", limit: 2 });
    expect(page.json.results.length).toBe(2);
    expect(page.json.more).toBe(true);
  });

  test("the 64 MiB scan bound and the output limit set `more`", async () => {
    const { scope, log } = seeded();
    expect(searchLog(log, "message", 100, 100).more).toBe(true); // not even the newest episode fits in 100 bytes
    const small = await history(scope, { action: "search", query: "message", limit: 100 }, 1024);
    expect(small.json.more).toBe(true);
    expect(small.json.results.length).toBeLessThan(40);
    expect(Buffer.byteLength(small.result.output)).toBeLessThanOrEqual(1024);
  });

  test("episodes lists newest first with /new endings and date filters", async () => {
    const { scope } = seeded();
    const r = await history(scope, { action: "episodes" });
    expect(r.json.episodes.map((e: any) => e.episode)).toEqual([
      "2026/2026-09-21_2026-09-27/2026-09-26T14-04-05",
      "2026/2026-09-07_2026-09-13/2026-09-10T09-00-00",
      "2026/2026-08-31_2026-09-06/2026-09-01T10-00-00",
    ]);
    expect(r.json.episodes[2]).toMatchObject({ messages: 2, ended_by_new: true, owner_start: "the blue door needs paint" });
    expect(r.json.episodes[0].ended_by_new).toBe(false);
    const before = await history(scope, { action: "episodes", before: "2026-09-10" });
    expect(before.json.episodes.length).toBe(1);
    const after = await history(scope, { action: "episodes", after: "2026-09-10" });
    expect(after.json.episodes.length).toBe(2);
  });

  test("read pages through an episode and shows each file's state", async () => {
    const { scope, media, log } = seeded();
    const ep = "2026/2026-09-21_2026-09-27/2026-09-26T14-04-05";
    const first = await history(scope, { action: "read", episode: ep });
    expect(first.json.total).toBe(40);
    expect(first.json.messages.length).toBe(30);
    expect(first.json.more).toBe(true);
    const rest = await history(scope, { action: "read", episode: ep, offset: 30 });
    expect(rest.json.messages.map((m: any) => m.index)).toEqual([30, 31, 32, 33, 34, 35, 36, 37, 38, 39]);
    const files = "2026/2026-09-07_2026-09-13/2026-09-10T09-00-00";
    expect((await history(scope, { action: "read", episode: files })).json.messages[0].files).toEqual([{ name: "blue-door.jpg", state: "gone" }]);
    writeFileSync(join(media, "aaaaaa-blue-door.jpg"), "JPEG");
    expect((await history(scope, { action: "read", episode: files })).json.messages[0].files[0]).toMatchObject({ state: "media", path: join(media, "aaaaaa-blue-door.jpg") });
    const kept = await invokeTool(createChatKeepTool(scope)!, { path: join(media, "aaaaaa-blue-door.jpg") }, makeCallContext(scope));
    expect(kept.result.output).toContain(join(log, "files", "blue-door.jpg"));
    expect((await history(scope, { action: "read", episode: files })).json.messages[0].files[0]).toMatchObject({ state: "kept", path: join(log, "files", "blue-door.jpg") });
  });

  test("an episode ID of any other shape is refused", async () => {
    const { scope } = seeded();
    for (const episode of ["../../etc/passwd", "2026/2026-09-21_2026-09-27/../../x", "2026-09-26T14-04-05", "2026/x/2026-09-26T14-04-05"]) {
      const r = await history(scope, { action: "read", episode });
      expect(r.result.ok).toBe(false);
      expect(r.result.output).toContain("<year>/<week>/<start>");
    }
  });
});

describe("chat_keep", () => {
  const keep = (scope: FakeScope, path: string) => invokeTool(createChatKeepTool(scope)!, { path }, makeCallContext(scope));

  test("keeps under the user's name, never replaces one of the same name, and reports a file kept twice", async () => {
    const { scope, media, log } = chatSession();
    const a = join(media, "aaaaaa-cat.jpg");
    const b = join(media, "bbbbbb-cat.jpg");
    writeFileSync(a, "cat one");
    writeFileSync(b, "cat two");
    const r1 = await keep(scope, a);
    expect(r1.risk).toBe("filesystem");
    expect(r1.result.output).toBe(`kept: ${join(log, "files", "cat.jpg")}`);
    const r2 = await keep(scope, b);
    expect(r2.result.output).toBe(`kept: ${join(log, "files", "cat-2.jpg")}`);
    expect(readFileSync(join(log, "files", "cat.jpg"), "utf8")).toBe("cat one");
    expect(readFileSync(join(log, "files", "cat-2.jpg"), "utf8")).toBe("cat two");
    expect(existsSync(a) || existsSync(b)).toBe(false);
    expect((await keep(scope, a)).result.output).toBe(`already kept: ${join(log, "files", "cat.jpg")}`);
    // Kept files are never expired.
    const old = (Date.now() - 90 * 86_400_000) / 1000;
    utimesSync(join(log, "files", "cat.jpg"), old, old);
    expireMedia(join(scope.scvHome, "state", "media"), 30);
    expect(existsSync(join(log, "files", "cat.jpg"))).toBe(true);
  });

  test("refuses symlinks, files outside this chat's media directory and relative paths", async () => {
    const { scope, media, root } = chatSession();
    const other = chatSession();
    writeFileSync(join(other.media, "cccccc-x.txt"), "x");
    writeFileSync(join(root, "outside.txt"), "o");
    symlinkSync(join(root, "outside.txt"), join(media, "dddddd-link.txt"));
    expect((await keep(scope, join(media, "dddddd-link.txt"))).result.output).toContain("not a regular file");
    expect((await keep(scope, join(other.media, "cccccc-x.txt"))).result.output).toContain("not a file of this chat's media directory");
    expect((await keep(scope, `${media}/../${"x"}`)).result.ok).toBe(false);
    expect((await keep(scope, "cccccc-x.txt")).result.output).toContain("absolute path");
    expect((await keep(scope, join(media, "eeeeee-gone.txt"))).result.output).toContain("no longer in the chat media");
  });

  const shm = "/dev/shm";
  test.skipIf(!needs("/dev/shm on its own file system"))("across disks the file is copied to a private temporary file, then linked", async () => {
    const logRoot = mkdtempSync(join(shm, "scv-chat-"));
    roots.push(logRoot);
    const { scope, media, log } = chatSession({ logRoot });
    const a = join(media, "aaaaaa-notes.txt");
    writeFileSync(a, "notes");
    const r = await keep(scope, a);
    expect(r.result.output).toBe(`kept: ${join(log, "files", "notes.txt")}`);
    expect(readFileSync(join(log, "files", "notes.txt"), "utf8")).toBe("notes");
    expect(statSync(join(log, "files", "notes.txt")).mode & 0o777).toBe(0o600);
    expect(existsSync(a)).toBe(false);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(join(log, "files")).filter((f) => f.startsWith("."))).toEqual([]); // no temporary left
  });
});
