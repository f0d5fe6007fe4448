// The Feishu channel through the real daemon process (dist/scv), the official SDK inside it talking only to
// the fake Feishu server on 127.0.0.1: events over the long connection, replies over REST.
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeFeishu, type FakeFeishu } from "../fake/feishu-server";
import { hang, startFakeModel, text, toolCalls, type FakeModel } from "../fake/model-server";
import { startProxyTrap, type ProxyTrap } from "../fake/proxy-trap";
import { feishuBridge, messageText, OWNER, waitConnected } from "./feishu-helpers";
import { channelStatus, cleanupBridges, killDaemon, startDaemon, waitFor } from "./helpers";

let model: FakeModel;
let fake: FakeFeishu;
let trap: ProxyTrap;
beforeAll(async () => {
  model = await startFakeModel();
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  fake = await startFakeFeishu();
  trap = startProxyTrap();
});
afterEach(async () => {
  await cleanupBridges();
  await fake.close();
  // Nothing went to a proxy: every request the SDK made was for the loopback fake.
  expect(trap.connections()).toBe(0);
  trap.stop();
  model.clear();
  model.requests.length = 0;
});

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
const inputText = (body: any): string => JSON.stringify(body.input ?? body.messages);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

test("a text turn: the push is acked at once, the owner's chat has tools, the reply is rendered markdown", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(text("**Hello** owner, see `x`"));
  await startDaemon(b);
  await waitConnected(fake, b);
  const pushedAt = Date.now();
  const frame = fake.push(fake.messageEvent({ message_id: "om_1", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "hi" } }));
  await waitFor(() => fake.messages.length === 1, 15_000, `the reply; log:\n${b.logText()}`);
  const ack = fake.acks.find((a) => a.frameId === frame)!;
  expect(ack.code).toBe(200);
  expect(ack.at - pushedAt).toBeLessThan(3000);
  expect(ack.bizRt).toBeDefined();
  const [m] = fake.messages;
  expect(m).toMatchObject({ receive_id_type: "open_id", receive_id: OWNER, msg_type: "post" });
  expect(messageText(m!)).toBe("**Hello** owner, see `x`");
  expect(m!.uuid).toMatch(/^[0-9a-f]{32}-0$/);
  expect(toolNames(model.requests[0]!.body)).toEqual(expect.arrayContaining(["bash", "chat_attach"]));
  // A "Typing" reaction on the owner's message while the turn ran, removed after.
  await waitFor(() => fake.reactions.some((r) => r.deleted), 25_000, "the typing reaction to be removed");
  expect(fake.reactions).toEqual([{ message_id: "om_1", emoji: "Typing", deleted: true }]);
  expect((await channelStatus(b))[0]).toMatchObject({ kind: "feishu", state: "connected" });
  expect(b.logText()).not.toContain(fake.appSecret);
}, 40_000);

test("an image in and a file out: the owner's image is saved, chat_attach uploads a file from a buffer", async () => {
  const b = feishuBridge(model.url, fake, trap);
  writeFileSync(join(b.workspace, "report.pdf"), "%PDF-1.4 report");
  model.queue(toolCalls([{ name: "chat_attach", arguments: { path: "report.pdf", caption: "the report" } }]), text("Here it is."));
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.addResource("om_img", "img_v2_abc", PNG, "image");
  fake.push(fake.messageEvent({ message_id: "om_img", chat_id: "oc_p2p_owner", sender: OWNER, message_type: "image", content: { image_key: "img_v2_abc" } }));
  await waitFor(() => fake.messages.length === 2, 15_000, `the reply and the file; log:\n${b.logText()}`);
  const [reply, file] = fake.messages;
  expect(messageText(reply!)).toBe("Here it is.\n\nreport.pdf: the report");
  expect(file).toMatchObject({ msg_type: "file", receive_id: OWNER });
  const upload = fake.uploads.find((u) => u.key === file!.content.file_key)!;
  expect(upload).toMatchObject({ kind: "file", name: "report.pdf" });
  expect(new TextDecoder().decode(upload.bytes)).toBe("%PDF-1.4 report");
  expect(reply!.uuid!.slice(0, 32)).toBe(file!.uuid!.slice(0, 32)); // both parts of one delivery record
  const saved = /\[file from the user: ([^\]]+)\]/.exec(inputText(model.requests[0]!.body))![1]!;
  expect(saved.startsWith(join(b.home, "state", "media", "feishu", "default"))).toBe(true);
  expect(saved.endsWith("img_v2_abc.png")).toBe(true);
  expect(new Uint8Array(readFileSync(saved))).toEqual(PNG);
}, 40_000);

test("a video goes out as a playable media message: an mp4 uploaded with file_type mp4", async () => {
  const b = feishuBridge(model.url, fake, trap);
  writeFileSync(join(b.workspace, "clip.mp4"), "\0\0\0\x18ftypmp42 fake video");
  model.queue(toolCalls([{ name: "chat_attach", arguments: { path: "clip.mp4" } }]), text("The clip."));
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_vid", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "send the clip" } }));
  await waitFor(() => fake.messages.length === 2, 15_000, `the reply and the video; log:\n${b.logText()}`);
  const video = fake.messages[1]!;
  expect(video).toMatchObject({ msg_type: "media", receive_id: OWNER });
  const upload = fake.uploads.find((u) => u.key === video.content.file_key)!;
  expect(upload).toMatchObject({ kind: "file", name: "clip.mp4", fileType: "mp4" });
}, 40_000);

test("the same event delivered twice (and the same message under a new event ID) gets one reply; every push is acked", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(text("only once"), text("must not be used"));
  await startDaemon(b);
  await waitConnected(fake, b);
  const event = fake.messageEvent({ message_id: "om_dup", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "hello" }, event_id: "ev-dup-1" });
  const frames = [fake.push(event), fake.push(event)];
  await waitFor(() => fake.messages.length === 1, 15_000, `the reply; log:\n${b.logText()}`);
  frames.push(fake.push({ ...event, event_id: "ev-dup-2" }));
  await waitFor(() => fake.acks.length === 3, 25_000, "three acks");
  await Bun.sleep(800);
  expect(fake.acks.map((a) => a.code)).toEqual([200, 200, 200]);
  expect(fake.acks.map((a) => a.frameId).sort()).toEqual(frames.sort());
  expect(fake.messages.map(messageText)).toEqual(["only once"]);
  expect(model.requests.length).toBe(1);
}, 40_000);

test("a send whose reply was lost to a 5xx is retried with the same uuid: one message", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(text("delivered once"));
  fake.fail("/open-apis/im/v1/messages", 502, { code: 1, msg: "bad gateway" }, { after: true });
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_r", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "hi" } }));
  await waitFor(() => fake.createCalls >= 2, 15_000, `the retry; log:\n${b.logText()}`);
  await Bun.sleep(500);
  expect(fake.createCalls).toBe(2);
  expect(fake.messages.map(messageText)).toEqual(["delivered once"]);
  const records = (await channelStatus(b))[0];
  expect(records).toMatchObject({ outbound_pending: 0, outbound_failed: 0 });
}, 40_000);

test("a daemon killed mid-turn reports the interrupted turn once after the restart and does not re-run it", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(hang("thinking "));
  await startDaemon(b);
  await waitConnected(fake, b);
  const event = fake.messageEvent({ message_id: "om_k", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "a long task" } });
  fake.push(event);
  await waitFor(() => model.requests.length === 1, 15_000, "the turn to start");
  await killDaemon(b, "SIGKILL");
  await waitFor(() => fake.connections() === 0, 25_000, "the connection to drop");
  model.clear();
  model.queue(text("must not run"));
  await startDaemon(b);
  await waitConnected(fake, b);
  await waitFor(() => fake.messages.length === 1, 15_000, `the interruption notice; log:\n${b.logText()}`);
  fake.push(event); // the platform pushes it again: still answered once
  await Bun.sleep(1500);
  expect(fake.messages.length).toBe(1);
  expect(messageText(fake.messages[0]!)).toContain("interrupted");
  expect(fake.messages[0]!.receive_id).toBe(OWNER);
  expect(model.requests.length).toBe(1);
}, 50_000);

test("other people and groups get tool-free sessions; a group message reaches SCV only when the bot is mentioned", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(text("hello stranger"), text("hello group"));
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_s", chat_id: "oc_p2p_x", sender: "ou_stranger0000", content: { text: "hi" } }));
  await waitFor(() => fake.messages.length === 1, 15_000, "the stranger's reply");
  fake.push(fake.messageEvent({ message_id: "om_g1", chat_id: "oc_group1", chat_type: "group", sender: OWNER, content: { text: "chatting among ourselves" } }));
  const mention = [{ key: "@_user_1", id: { open_id: fake.botOpenId }, name: "SCV" }];
  fake.push(fake.messageEvent({ message_id: "om_g2", chat_id: "oc_group1", chat_type: "group", sender: OWNER, content: { text: "@_user_1 what is up?" }, mentions: mention }));
  await waitFor(() => fake.messages.length === 2, 15_000, `the group reply; log:\n${b.logText()}`);
  await Bun.sleep(500);
  expect(fake.messages[0]).toMatchObject({ receive_id_type: "open_id", receive_id: "ou_stranger0000" });
  expect(fake.messages[1]).toMatchObject({ receive_id_type: "chat_id", receive_id: "oc_group1" });
  expect(model.requests.length).toBe(2);
  expect(toolNames(model.requests[0]!.body)).toEqual([]);
  expect(toolNames(model.requests[1]!.body)).toEqual([]); // the owner, but in a group
  expect(inputText(model.requests[1]!.body)).toContain("what is up?");
  expect(inputText(model.requests[1]!.body)).not.toContain("@_user_1");
  expect(fake.acks.length).toBe(3); // the unmentioned group message was acked too
}, 40_000);

test("a wrong secret, a missing scope and a tenant without long connections are named clearly", async () => {
  const scv = async (b: { env: Record<string, string> }, ...args: string[]) => {
    const p = Bun.spawn([join(import.meta.dir, "../../dist/scv"), ...args], { env: b.env, stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
    return { code, stdout, stderr };
  };
  const wrong = feishuBridge(model.url, fake, trap, { secret: "not-the-secret" });
  await startDaemon(wrong);
  await waitFor(async () => (await channelStatus(wrong))[0]?.state === "paused", 10_000, "the channel to pause");
  const status = await scv(wrong, "channels", "status");
  expect(status.stdout).toContain("rejected the app credentials");
  expect(status.stdout).toContain("app_secret_env");
  expect(status.stdout + wrong.logText()).not.toContain("not-the-secret");
  await cleanupBridges();

  fake.endpointError = { code: 403, msg: "forbidden" };
  const noWs = feishuBridge(model.url, fake, trap);
  await startDaemon(noWs);
  await waitFor(async () => /persistent connection/.test((await channelStatus(noWs))[0]?.reason ?? ""), 10_000, `the 403 to be reported; log:\n${noWs.logText()}`);
  await cleanupBridges();

  fake.endpointError = undefined;
  const scope = feishuBridge(model.url, fake, trap);
  model.queue(text("cannot be sent"));
  fake.fail(
    "/open-apis/im/v1/messages",
    400,
    { code: 99991672, msg: "Access denied. One of the following scopes is required: [im:message:send_as_bot].应用尚未开通所需的应用身份权限" },
    { count: 50 },
  );
  await startDaemon(scope);
  await waitConnected(fake, scope);
  fake.push(fake.messageEvent({ message_id: "om_sc", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "hi" } }));
  await waitFor(async () => /im:message:send_as_bot/.test((await channelStatus(scope))[0]?.last_error ?? ""), 15_000, `the scope error; log:\n${scope.logText()}`);
  expect((await channelStatus(scope))[0].last_error).toContain("developer console");
}, 60_000);

test("a dropped long connection reconnects and an expired token is fetched again", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(text("first"), text("after reconnect"));
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_a", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "one" } }));
  await waitFor(() => fake.messages.length === 1, 15_000, "the first reply");
  const tokensBefore = fake.tokenRequests;
  fake.expireTokens();
  fake.dropConnections();
  await waitFor(() => fake.connections() === 0, 25_000, "the drop");
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_b", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "two" } }));
  await waitFor(() => fake.messages.length === 2, 15_000, `the second reply; log:\n${b.logText()}`);
  expect(fake.messages.map(messageText)).toEqual(["first", "after reconnect"]);
  expect(fake.tokenRequests).toBeGreaterThan(tokensBefore); // the rejected token was replaced
}, 40_000);

test("what `scv channels login feishu` stored is enough to run: app, secret, domain and owner", async () => {
  const b = feishuBridge(model.url, fake, trap);
  const file = join(b.home, "config.toml");
  const login = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "channels", "login", "feishu"], { env: b.env, stdout: "pipe", stderr: "pipe" });
  expect(await login.exited).toBe(0);
  // Only the table remains: no domain, app_id, app_secret_env or owner in the config.
  writeFileSync(file, readFileSync(file, "utf8").replace(/\[channels\.feishu\][\s\S]*$/, "[channels.feishu]\n"));
  delete b.env.FEISHU_TEST_SECRET;
  model.queue(text("hello owner"));
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_l", chat_id: "oc_p2p_owner", sender: fake.registration.openId, content: { text: "hi" } }));
  await waitFor(() => fake.messages.length === 1, 15_000, `the reply; log:\n${b.logText()}`);
  expect(fake.messages[0]!.receive_id).toBe(fake.registration.openId);
  expect(toolNames(model.requests[0]!.body)).toContain("bash"); // the recorded owner's chat has tools
}, 40_000);

test("a voice message is saved and the model told it has no text; a reply carries what it quoted", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(text("I heard nothing"), text("about that"));
  await startDaemon(b);
  await waitConnected(fake, b);
  const OPUS = new TextEncoder().encode("OggS fake opus");
  fake.addResource("om_v", "file_v1", OPUS, "file");
  fake.push(fake.messageEvent({ message_id: "om_v", chat_id: "oc_p2p_owner", sender: OWNER, message_type: "audio", content: { file_key: "file_v1", duration: 3000 } }));
  await waitFor(() => fake.messages.length === 1, 15_000, `the first reply; log:\n${b.logText()}`);
  const prompt = inputText(model.requests[0]!.body);
  expect(prompt).toContain("a voice message (3 s) arrived without text");
  const saved = /\[file from the user: ([^\]]+)\]/.exec(prompt)![1]!;
  expect(saved.endsWith("voice-file_v1.opus")).toBe(true);
  expect(readFileSync(saved, "utf8")).toBe("OggS fake opus");
  fake.push(fake.messageEvent({ message_id: "om_q", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "why?" }, parent_id: fake.messages[0]!.message_id }));
  await waitFor(() => fake.messages.length === 2, 15_000, "the second reply");
  expect(inputText(model.requests[1]!.body)).toContain("[quoting: I heard nothing]");
}, 40_000);

test("with no owner known every chat is tool-free, and scv channels status says how to set one", async () => {
  const b = feishuBridge(model.url, fake, trap, { owner: null });
  model.queue(text("no tools here"));
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_n", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "hi" } }));
  await waitFor(() => fake.messages.length === 1, 15_000, "the reply");
  expect(toolNames(model.requests[0]!.body)).toEqual([]);
  const p = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "channels", "status"], { env: b.env, stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  expect(await p.exited).toBe(0);
  expect(out).toContain("feishu/default  connected");
  expect(out).toContain("no owner is known, so every Feishu chat is tool-free: run `scv channels login feishu`, or set owner_open_id");
}, 40_000);

test("a rich-text post Feishu refuses goes out as plain text, once", async () => {
  const b = feishuBridge(model.url, fake, trap);
  model.queue(text("# Title\n\nbody"));
  fake.fail("/open-apis/im/v1/messages", 400, { code: 230099, msg: "Failed to create card content" });
  await startDaemon(b);
  await waitConnected(fake, b);
  fake.push(fake.messageEvent({ message_id: "om_p", chat_id: "oc_p2p_owner", sender: OWNER, content: { text: "hi" } }));
  await waitFor(() => fake.messages.length === 1, 15_000, `the reply; log:\n${b.logText()}`);
  // The send is recorded a moment after the platform took it: waited for, then nothing else was sent.
  await waitFor(async () => (await channelStatus(b))[0]?.outbound_pending === 0, 25_000, `the send to be recorded; log:\n${b.logText()}`);
  await Bun.sleep(500);
  expect(fake.messages.map((m) => [m.msg_type, messageText(m)])).toEqual([["text", "# Title\n\nbody"]]);
  expect((await channelStatus(b))[0]).toMatchObject({ outbound_pending: 0, outbound_failed: 0 });
}, 40_000);
