// The WeChat channel through the real daemon process, against a fake iLink server on 127.0.0.1: QR login
// picked up by a running daemon, a text turn, files in (kept) and out (chat_attach through the encrypted CDN),
// a restart mid-poll, a stale token, ret=-2 failures, and the reply budget running out and flushing later.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { saveLogin } from "../../src/channels/wechat/store";
import { MORE_WAITING } from "../../src/channels/wechat/sender";
import { type FakeIlink, startFakeIlink } from "../fake/ilink-server";
import { fakeModelForFile } from "../fake/binary";
import { startFakeModel, text, toolCalls } from "../fake/model-server";
import { makePng } from "../fake/png";
import { type Bridge, channelStatus, cleanupBridges, killDaemon, makeBridge, startDaemon, waitFor } from "./helpers";

const fake = fakeModelForFile();
let ilink: FakeIlink;
afterEach(async () => {
  await cleanupBridges();
  await ilink?.close();
  fake.clear();
  fake.requests.length = 0;
});

const SCV = join(import.meta.dir, "../../dist/scv");
const inputText = (body: any): string => JSON.stringify(body.input ?? body.messages);

/** A bridge whose only channel is WeChat against the fake iLink server. */
async function wechatBridge(extra = "", modelUrl = fake.url): Promise<Bridge> {
  ilink = await startFakeIlink({ pollMs: 1500 });
  const b = makeBridge(modelUrl);
  const file = join(b.home, "config.toml");
  const config = readFileSync(file, "utf8").replace(/\[channels\.dir\][\s\S]*$/, "");
  writeFileSync(file, `${config}[channels.wechat]\nbase_url = "${ilink.url}"\ncdn_base_url = "${ilink.cdnUrl}"\n${extra}\n`);
  return b;
}

function logIn(b: Bridge, token = ilink.token) {
  saveLogin(b.home, "default", { bot_token: token, bot_id: ilink.botId, base_url: ilink.url, owner: ilink.ownerId, saved_at: new Date().toISOString() });
}

const texts = () => ilink.sent.filter((s) => s.item?.type === 1).map((s) => s.item.text_item.text as string);
const say = (t: string, opts?: { from?: string }) => ilink.push([{ type: 1, text_item: { text: t } }], opts);

async function scv(b: Bridge, args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([SCV, ...args], { env: { ...b.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, stdout, stderr };
}

function deliveryStates(b: Bridge): string[] {
  const dir = join(b.home, "state", "channels", "outbox");
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json") && !n.startsWith("."))
    .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")).state);
}

async function wechatState(b: Bridge) {
  return (await channelStatus(b)).find((c) => c.kind === "wechat");
}

test("QR login while the daemon runs, then a text turn: typing, the latest context token, long text split on paragraphs", async () => {
  const b = await wechatBridge();
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "logged_out", 25_000, "the channel to report logged out");
  expect((await wechatState(b)).reason).toContain("scv channels login wechat");
  expect((await scv(b, ["channels", "status"])).stdout).toContain("logged_out");

  // A delegated SCV may not log in.
  const refused = await scv(b, ["channels", "login", "wechat"], { SCV_DELEGATION_DEPTH: "1" });
  expect(refused.code).toBe(3);
  expect(refused.stderr).toContain("refused");
  expect((await scv(b, ["channels", "login", "feishuu"])).code).toBe(2);

  ilink.loginScripts = [["wait", "scaned", "expired"], ["scaned", "confirmed"]];
  const login = await scv(b, ["channels", "login", "wechat"]);
  expect(login.code).toBe(0);
  const shown = login.stdout + login.stderr;
  expect(shown).toContain("https://liteapp.weixin.qq.com/q/fake1");
  expect(shown).toContain("expired; here is a fresh one");
  expect(shown).toContain("https://liteapp.weixin.qq.com/q/fake2");
  expect(shown).toContain("scanned");
  expect(shown).not.toContain(ilink.token);
  expect(shown).not.toContain(ilink.ownerId);
  const stored = join(b.home, "state", "channels", "wechat", "default", "login.json");
  expect(statSync(stored).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(stored, "utf8"))).toMatchObject({ bot_token: ilink.token, bot_id: ilink.botId, owner: ilink.ownerId });
  const listed = await scv(b, ["channels", "list", "--json"]);
  expect(JSON.parse(listed.stdout)).toEqual([{ name: "wechat", kind: "wechat", account: "default", logged_in: true }]);
  expect((await scv(b, ["channels", "list"])).stdout).toBe("wechat/default  logged in\n");

  // The running daemon picks the login up by itself.
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "the channel to connect after the login");
  const para = (c: string) => c.repeat(3000);
  fake.queue(text("hello from SCV"), text(`${para("a")}\n\n${para("b")}`));
  say("hi");
  await waitFor(() => texts().length >= 1, 10_000, `the first reply; log:\n${b.logText()}`);
  expect(texts()[0]).toBe("hello from SCV");
  const second = say("write a lot");
  await waitFor(() => texts().length >= 3, 10_000, "the long reply");
  expect(texts().slice(1)).toEqual([para("a"), para("b")]); // 6002 characters: two messages, split between paragraphs
  expect(ilink.sent.at(-1)!.context_token).toBe(`ctx-${second}`); // the latest token of the conversation
  expect(ilink.sent.every((s) => s.to === ilink.ownerId && s.auth === `Bearer ${ilink.token}`)).toBe(true);
  await waitFor(() => ilink.typing.some((t) => t.status === 2), 25_000, "typing to be cleared");
  expect(ilink.typing[0]).toEqual({ user: ilink.ownerId, status: 1 });
  // The owner's session has tools.
  expect(JSON.stringify(fake.requests[0]!.body)).toContain("chat_attach");

  const logout = await scv(b, ["channels", "logout", "wechat"]);
  expect(logout.code).toBe(0);
  await waitFor(async () => (await wechatState(b))?.state === "logged_out", 25_000, "the channel to stop after logout");
}, 60_000);

test("a file the owner sends is downloaded, decrypted and saved to the chat media, and kept; a stranger gets no tools", async () => {
  let keepPath = "";
  const model = await startFakeModel({
    onRequest: (r) => {
      const m = /\[file from the user: ([^\]]+)\]/.exec(inputText(r.body));
      if (m && !keepPath) {
        keepPath = m[1]!;
        model.queue(toolCalls([{ name: "chat_keep", arguments: { path: keepPath } }]), text("Kept it."));
      }
    },
  });
  try {
    const b = await wechatBridge("", model.url);
    logIn(b);
    await startDaemon(b);
    await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
    const pdf = Buffer.from("%PDF-1.4 the quarterly report");
    const { media } = ilink.addMedia(pdf, "hex");
    ilink.push([{ type: 4, file_item: { media, file_name: "report.pdf", len: String(pdf.length) } }, { type: 1, text_item: { text: "keep this" } }]);
    await waitFor(() => texts().includes("Kept it."), 15_000, `the reply; log:\n${b.logText()}`);
    expect(keepPath.startsWith(join(b.home, "state", "media", "wechat", "default"))).toBe(true);
    const convDir = join(b.home, "archive", "wechat", "default");
    const kept = join(convDir, readdirSync(convDir)[0]!, "files", "report.pdf");
    expect(readFileSync(kept)).toEqual(pdf);
    // Nothing of the download is left behind in the channel's temporary directory.
    expect(readdirSync(join(b.home, "state", "channels", "wechat", "default", "incoming"))).toEqual([]);

    model.queue(text("hello stranger"));
    say("who are you?", { from: "stranger@im.wechat" });
    await waitFor(() => texts().includes("hello stranger"), 10_000, "the stranger's reply");
    expect(ilink.sent.find((s) => s.item.text_item?.text === "hello stranger")!.to).toBe("stranger@im.wechat");
    expect(JSON.stringify(model.requests.at(-1)!.body.tools ?? [])).toBe("[]");
  } finally {
    await model.close();
  }
}, 60_000);

test("an image, a voice message and a video come in; chat_attach sends an image back through the encrypted CDN upload", async () => {
  const b = await wechatBridge();
  logIn(b);
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("chart pixels ".repeat(40))]);
  writeFileSync(join(b.workspace, "chart.png"), png);
  fake.queue(toolCalls([{ name: "chat_attach", arguments: { path: "chart.png" } }]), text("Here is the chart."));
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
  const photo = Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.from("a photo")]);
  const image = ilink.addMedia(photo, "raw");
  const clip = Buffer.from("ftypmp42 a short clip");
  const video = ilink.addMedia(clip, "hex");
  ilink.push([
    { type: 2, image_item: { media: image.media } },
    { type: 3, voice_item: { text: "please send me the chart", encode_type: 6, playtime: 2000 } },
    { type: 5, video_item: { media: video.media, video_size: 32 } },
  ]);
  await waitFor(() => ilink.sent.length >= 2, 15_000, `the reply and the image; log:\n${b.logText()}`);
  const prompt = inputText(fake.requests[0]!.body);
  expect(prompt).toContain("[voice message transcript: please send me the chart]");
  const [saved, savedClip] = [...prompt.matchAll(/\[file from the user: ([^\]]+)\]/g)].map((m) => m[1]!);
  expect(saved).toEndWith(".jpg");
  expect(readFileSync(saved!)).toEqual(photo);
  expect(savedClip).toEndWith(".mp4");
  expect(readFileSync(savedClip!)).toEqual(clip);
  expect(texts()).toEqual(["Here is the chart."]);
  const sentImage = ilink.sent.find((s) => s.item.type === 2)!;
  expect(ilink.uploaded(sentImage.item.image_item.media)).toEqual(png);
  expect(sentImage.item.image_item.mid_size).toBe(Math.ceil((png.length + 1) / 16) * 16);
}, 60_000);

test("a photo the owner sends reaches the model as an image (images = true); the session keeps the saved file's path", async () => {
  const b = await wechatBridge();
  const file = join(b.home, "config.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace("max_retries = 0\n", "max_retries = 0\nimages = true\n"));
  logIn(b);
  fake.queue(text("A gradient."));
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
  const photo = makePng(16, 9);
  ilink.push([{ type: 2, image_item: { media: ilink.addMedia(photo, "raw").media } }, { type: 1, text_item: { text: "what is this?" } }]);
  await waitFor(() => texts().length >= 1, 15_000, `the reply; log:\n${b.logText()}`);
  const user = fake.requests[0]!.body.input.at(-1);
  expect(user.role).toBe("user");
  expect(user.content[0].text).toContain("what is this?");
  expect(user.content[1]).toEqual({ type: "input_image", image_url: `data:image/png;base64,${photo.toString("base64")}`, detail: "auto" });
  expect(texts()).toEqual(["A gradient."]);
  const sessionsDir = join(b.home, "state", "sessions");
  const stored = readdirSync(sessionsDir).filter((n) => n.endsWith(".jsonl")).map((n) => readFileSync(join(sessionsDir, n), "utf8")).join("");
  const ref = /"images":\[\{"path":"([^"]+)","mime":"image\/png"/.exec(stored);
  expect(readFileSync(ref![1]!).equals(photo)).toBe(true);
  expect(stored).not.toContain(photo.toString("base64").slice(0, 40));
}, 60_000);

test("a restart mid-poll loses nothing and repeats nothing, also when the platform replays and redelivers", async () => {
  const b = await wechatBridge();
  logIn(b);
  fake.queue(text("answer one"), text("answer two"), text("must not be used"));
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
  say("one");
  await waitFor(() => texts().length === 1, 10_000, "the first answer");
  // Killed after SCV noted the reply as sent (a kill between WeChat's answer and that note may send it again:
  // iLink acknowledges nothing SCV could deduplicate on), while a long poll is open.
  await waitFor(() => deliveryStates(b).join() === "sent", 25_000, "the reply to be recorded as sent");
  await waitFor(() => ilink.pollsOpen() > 0, 25_000, "a long poll to be open");
  const cursorBefore = JSON.parse(readFileSync(join(b.home, "state", "channels", "wechat", "default", "cursor.json"), "utf8")).get_updates_buf;
  await killDaemon(b, "SIGKILL");
  const polls = ilink.cursors.length;
  const two = say("two"); // arrives while SCV is down
  ilink.replayAll = true; // and the platform replays everything on the next poll
  await startDaemon(b);
  await waitFor(() => texts().length === 2, 10_000, `the second answer; sent ${JSON.stringify(texts())}, model requests ${fake.requests.length}, cursors ${JSON.stringify(ilink.cursors)}; log:\n${b.logText()}`);
  ilink.redeliver(two);
  await Bun.sleep(2500);
  expect(texts()).toEqual(["answer one", "answer two"]);
  expect(fake.requests.length).toBe(2);
  expect(ilink.cursors[polls]).toBe(cursorBefore); // resumed from the saved cursor
}, 60_000);

test("a stale token pauses the channel and keeps the reply; a new login sends it with word of what happened", async () => {
  const slow = await startFakeModel({ frameDelayMs: 400 });
  try {
    const b = await wechatBridge("", slow.url);
    logIn(b);
    slow.queue(text("the answer that waited"));
    await startDaemon(b);
    await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
    say("a question");
    await waitFor(() => slow.requests.length === 1, 10_000, "the turn to start");
    ilink.staleTokens.add(ilink.token); // the token expires while the turn runs
    await waitFor(async () => (await wechatState(b))?.state === "paused", 10_000, "the channel to pause");
    const status = await scv(b, ["channels", "status"]);
    expect(status.stdout).toContain("paused");
    expect(status.stdout).toContain("scv channels login wechat");
    await waitFor(async () => (await wechatState(b))?.outbound_pending + (await wechatState(b))?.outbound_held === 1, 10_000, "the reply to wait in the outbox");
    await Bun.sleep(500);
    expect(ilink.sent.length).toBe(0);
    ilink.token = "tok-2";
    logIn(b, "tok-2"); // what `scv channels login wechat` stores
    await waitFor(() => texts().length === 1, 10_000, `the held reply; log:\n${b.logText()}`);
    expect(texts()[0]).toContain("WeChat login expired");
    expect(texts()[0]).toContain("scv channels login wechat");
    expect(texts()[0]).toEndWith("the answer that waited");
    expect(ilink.sent[0]!.auth).toBe("Bearer tok-2");
    expect((await wechatState(b)).state).toBe("connected");
  } finally {
    await slow.close();
  }
}, 60_000);

test("ret=-2 is a failure: retried, then held until the owner writes again, never marked sent", async () => {
  const b = await wechatBridge();
  logIn(b);
  fake.queue(text("first try"), text("second answer"), text("third answer"));
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
  ilink.failSends = 2;
  say("one");
  await waitFor(() => texts().length === 1, 10_000, "the answer after two refusals");
  expect(ilink.attempts.length).toBe(3);
  expect(texts()).toEqual(["first try"]);
  ilink.failSends = 100;
  say("two");
  await waitFor(async () => (await wechatState(b))?.outbound_held === 1, 10_000, `the reply to be held; log:\n${b.logText()}`);
  expect(ilink.attempts.length).toBe(6); // three tries, then held
  ilink.failSends = 0;
  say("three");
  await waitFor(() => texts().length === 3, 10_000, "the held reply and the new one");
  expect(texts()).toEqual(["first try", "second answer", "third answer"]);
  expect((await wechatState(b)).outbound_failed).toBe(0);
}, 60_000);

test("the reply budget runs out: one message says more is waiting, the rest flushes when the owner writes", async () => {
  const b = await wechatBridge("reply_budget = 4");
  logIn(b);
  const para = (c: string) => c.repeat(3500);
  const long = ["a", "b", "c", "d", "e"].map(para).join("\n\n");
  fake.queue(text(long), text("short answer"));
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
  say("tell me everything");
  await waitFor(() => texts().length === 4, 10_000, `three parts and the notice; log:\n${b.logText()}`);
  expect(texts()).toEqual([para("a"), para("b"), para("c"), MORE_WAITING]);
  await Bun.sleep(1000);
  expect(texts().length).toBe(4);
  expect((await wechatState(b)).outbound_held).toBe(1);
  say("go on");
  await waitFor(() => texts().length === 7, 10_000, "the rest and the next answer");
  expect(texts().slice(4)).toEqual([para("d"), para("e"), "short answer"]);
}, 60_000);

test("a 17 MiB text is cut before it is queued, and the owner's later messages, channels status and a restart all work (red team finding 5)", async () => {
  const b = await wechatBridge();
  logIn(b);
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
  fake.queue(text("that was long"), text("still here"));
  say(`start ${"x".repeat(17 * 1024 * 1024)} end`);
  await waitFor(() => texts().includes("that was long"), 20_000, `the first reply; log:\n${b.logText()}`);
  const prompt = inputText(fake.requests[0]!.body);
  expect(prompt).toContain("[SCV: this message was 17.0 MiB; only its first 64 KiB are shown]");
  expect(prompt.length).toBeLessThan(200_000);
  say("are you there?");
  await waitFor(() => texts().includes("still here"), 10_000, `the second reply; log:\n${b.logText()}`);
  const status = await scv(b, ["channels", "status"]);
  expect(status.code).toBe(0);
  expect(status.stdout).toContain("connected");
  await killDaemon(b, "SIGTERM");
  await startDaemon(b);
  expect((await scv(b, ["channels", "status"])).code).toBe(0);
}, 60_000);

const hasTools = (body: any) => (body.tools ?? []).length > 0;

test("owner status is decided per message: after a re-login by another account the former owner gets no tools, told once; a group with the owner's ID is another conversation (red team finding 2)", async () => {
  const b = await wechatBridge();
  logIn(b);
  await startDaemon(b);
  await waitFor(async () => (await wechatState(b))?.state === "connected", 25_000, "connected");
  fake.queue(text("owner answer"), text("group answer"), text("former owner answer"), text("new owner answer"));
  say("as the owner");
  await waitFor(() => texts().includes("owner answer"), 10_000, "the owner's reply");
  expect(hasTools(fake.requests[0]!.body)).toBe(true);
  // A group whose ID equals the owner's user ID is a tool-free conversation of its own.
  ilink.push([{ type: 1, text_item: { text: "from the group" } }], { from: "someone@im.wechat", group: ilink.ownerId });
  await waitFor(() => texts().includes("group answer"), 10_000, "the group's reply");
  expect(hasTools(fake.requests[1]!.body)).toBe(false);
  expect(inputText(fake.requests[1]!.body)).not.toContain("as the owner");

  // Another account logs in while the daemon runs.
  saveLogin(b.home, "default", { bot_token: ilink.token, bot_id: ilink.botId, base_url: ilink.url, owner: "new-owner@im.wechat", saved_at: new Date().toISOString() });
  await Bun.sleep(2500); // the adapter checks the login file every second
  say("still the owner?");
  await waitFor(() => texts().includes("former owner answer"), 10_000, `the former owner's reply; log:\n${b.logText()}`);
  const former = fake.requests[2]!.body;
  expect(hasTools(former)).toBe(false);
  expect(inputText(former)).not.toContain("as the owner"); // a new session, not the owner's history
  await waitFor(() => texts().some((t) => t.includes("access changed")), 25_000, `the notice; sent: ${JSON.stringify(texts())}; log:\n${b.logText()}`);
  say("I am the owner now", { from: "new-owner@im.wechat" });
  await waitFor(() => texts().includes("new owner answer"), 10_000, "the new owner's reply");
  expect(hasTools(fake.requests[3]!.body)).toBe(true);
}, 60_000);
