// The Telegram channel through the real daemon (dist/scv daemon run) against a fake Bot API on 127.0.0.1:
// pairing by a one-time code, a reply split at 4096 characters and rendered as HTML, a parse error falling back
// to plain text, 429 retry_after waited out, a SIGKILL between getUpdates and the reply, a group that is
// answered only when it names the bot, 401 stopping the channel, `scv doctor`'s getMe, and the token in no
// file SCV wrote.
import { afterEach, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { type FakeTelegram, OWNER_ID, STRANGER_ID, startFakeTelegram } from "../fake/telegram-server";
import { startFakeModel, text, toolCalls } from "../fake/model-server";
import { startFakeTranscriber } from "../fake/transcription-server";
import { makePng } from "../fake/png";
import { type Bridge, channelStatus, cleanupBridges, killDaemon, makeBridge, startDaemon, waitFor } from "./helpers";

const fake = fakeModelForFile();
let tg: FakeTelegram;
afterEach(async () => {
  await cleanupBridges();
  await tg?.close();
  fake.clear();
  fake.requests.length = 0;
});

const SCV = join(import.meta.dir, "../../dist/scv");

/** A bridge whose only channel is Telegram against the fake Bot API; the token in TELEGRAM_BOT_TOKEN. */
async function telegramBridge(extra = "", token?: string, modelUrl = fake.url): Promise<Bridge> {
  tg = await startFakeTelegram({ pollMs: 500 });
  const b = makeBridge(modelUrl);
  const file = join(b.home, "config.toml");
  const config = readFileSync(file, "utf8").replace(/\[channels\.dir\][\s\S]*$/, "");
  writeFileSync(file, `${config}[channels.telegram]\nbase_url = "${tg.url}"\n${extra}\n`);
  b.env.TELEGRAM_BOT_TOKEN = token ?? tg.token;
  return b;
}

async function scv(b: Bridge, args: string[]) {
  const p = Bun.spawn([SCV, ...args], { env: b.env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, stdout, stderr };
}

const state = async (b: Bridge) => (await channelStatus(b)).find((c) => c.kind === "telegram");
const connected = (b: Bridge) => waitFor(async () => (await state(b))?.state === "connected", 10_000, `the channel to connect; log:\n${b.logText()}`);
const sentTo = (chat: number) => tg.sent.filter((s) => s.chat_id === String(chat));

/** Every file under `dir`, as text. */
function everyFile(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if (e.isFile()) out.push({ path: p, text: readFileSync(p, "latin1") });
  }
  return out;
}

test("pairing makes the owner; a 5,000-character reply is split on a line, rendered as HTML; the token is in no file", async () => {
  const b = await telegramBridge("stream = false"); // the parts as sent, however long the fake model takes to stream them
  await startDaemon(b);
  await connected(b);

  // Before pairing, the owner's messages get a tool-free session; a wrong code pairs nobody.
  tg.say("/start WRONGCODE");
  await waitFor(() => sentTo(OWNER_ID).length >= 1, 10_000, "the answer to a wrong code");
  expect(sentTo(OWNER_ID)[0]!.text).toContain("not a pairing code");

  expect((await scv(b, ["channels", "telegram", "pair", "--account", "x"])).code).toBe(2);
  const pair = await scv(b, ["channels", "telegram", "pair"]);
  expect(pair.code).toBe(0);
  const code = /pairing code: ([A-Z0-9]{8})/.exec(pair.stdout)![1]!;
  expect(pair.stdout).toContain(`/start ${code}`);
  expect(pair.stdout + pair.stderr).not.toContain(tg.token);
  // A group cannot pair, and the code is still good afterwards.
  tg.say(`/start ${code}`, { chat: -100500, from: STRANGER_ID });
  tg.say(`/start ${code}`);
  await waitFor(() => sentTo(OWNER_ID).length >= 2, 10_000, `the pairing answer; log:\n${b.logText()}`);
  expect(sentTo(OWNER_ID)[1]!.text).toContain("Paired");
  const ownerFile = join(b.home, "state", "channels", "telegram", "default", "owner.json");
  expect(JSON.parse(readFileSync(ownerFile, "utf8")).user_id).toBe(String(OWNER_ID));
  expect(statSync(ownerFile).mode & 0o777).toBe(0o600);
  // The code works once: someone else sending it later is not made the owner.
  tg.say(`/start ${code}`, { from: STRANGER_ID });
  await waitFor(() => sentTo(STRANGER_ID).length >= 1, 10_000, "the stranger's answer");
  expect(sentTo(STRANGER_ID)[0]!.text).toContain("not a pairing code");
  expect(JSON.parse(readFileSync(ownerFile, "utf8")).user_id).toBe(String(OWNER_ID));

  const line = (n: number, c: string) => `${String(n).padStart(3, "0")} ${c.repeat(95)}`; // 99 characters
  const long = Array.from({ length: 50 }, (_, i) => line(i, "x")).join("\n"); // 50 × 99 + 49 = 4999
  fake.queue(text(`**Bold** & <tags> \`a<b\`\n${long}`));
  const asked = tg.say("write a lot");
  await waitFor(() => sentTo(OWNER_ID).length >= 4, 15_000, `the split reply; log:\n${b.logText()}`);
  const parts = sentTo(OWNER_ID).slice(2);
  expect(parts.every((p) => p.parse_mode === "HTML")).toBe(true);
  expect(parts[0]!.text.startsWith("<b>Bold</b> &amp; &lt;tags&gt; <code>a&lt;b</code>\n000 ")).toBe(true);
  expect(parts[0]!.reply_to).toBe(asked);
  expect(parts[1]!.reply_to).toBeUndefined();
  // Cut at a line boundary: every line whole, in order, nothing lost.
  const lines = parts.map((p) => p.text).join("\n").split("\n").slice(1);
  expect(lines).toEqual(long.split("\n"));
  expect(parts.every((p) => p.text.length <= 4096)).toBe(true);
  // The owner's session has tools now; typing was shown.
  expect(JSON.stringify(fake.requests.at(-1)!.body.tools ?? [])).toContain("chat_attach");
  expect(tg.calls.some((c) => c.method === "sendChatAction" && c.body.action === "typing" && c.body.chat_id === String(OWNER_ID))).toBe(true);

  expect((await scv(b, ["config", "show"])).stdout).not.toContain(tg.token);
  const doctor = await scv(b, ["doctor"]);
  expect(doctor.stdout).toContain("the token is accepted: the bot is @scv_test_bot");
  expect(doctor.stdout + doctor.stderr).not.toContain(tg.token);
  await killDaemon(b, "SIGTERM");
  const written = everyFile(b.root).filter((f) => !f.path.endsWith("config.toml"));
  expect(written.length).toBeGreaterThan(5);
  const secretParts = [tg.token, tg.token.split(":")[1]!, encodeURIComponent(tg.token)];
  expect(written.filter((f) => secretParts.some((s) => f.text.includes(s))).map((f) => f.path)).toEqual([]);
  expect(b.logText()).not.toContain(tg.token.split(":")[1]!);
}, 90_000);

test("HTML Telegram cannot parse goes as plain text; a 429 is waited out for retry_after seconds", async () => {
  const b = await telegramBridge(`owner = "${OWNER_ID}"`);
  await startDaemon(b);
  await connected(b);
  tg.script.sendMessage = [
    [400, { ok: false, error_code: 400, description: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0" }],
    [429, { ok: false, error_code: 429, description: "Too Many Requests: retry after 2", parameters: { retry_after: 2 } }],
  ];
  fake.queue(text("a **plain** answer"));
  tg.say("hello");
  await waitFor(() => sentTo(OWNER_ID).length >= 1, 15_000, `the reply; log:\n${b.logText()}`);
  const attempts = tg.calls.filter((c) => c.method === "sendMessage");
  expect(attempts.map((a) => a.body.parse_mode ?? "plain")).toEqual(["HTML", "plain", "plain"]);
  expect(sentTo(OWNER_ID)[0]!.text).toBe("a **plain** answer");
  expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(1900);
  expect(sentTo(OWNER_ID)).toHaveLength(1);
}, 60_000);

test("SIGKILL between getUpdates and the reply: after the restart the reply arrives once and the update is not answered again", async () => {
  const b = await telegramBridge(`owner = "${OWNER_ID}"`);
  await startDaemon(b);
  await connected(b);
  // The Bot API fails every send for now: the reply waits in the outbox.
  tg.script.sendMessage = Array.from({ length: 50 }, () => [502, { ok: false, error_code: 502, description: "Bad Gateway" }] as [number, unknown]);
  fake.queue(text("the one answer"));
  tg.say("question");
  await waitFor(() => tg.calls.filter((c) => c.method === "sendMessage").length >= 1, 15_000, `a send attempt; log:\n${b.logText()}`);
  await killDaemon(b, "SIGKILL");
  // As if the offset had never moved past the update: Telegram hands it over again.
  tg.unconfirm();
  tg.script.sendMessage = [];
  await startDaemon(b);
  await waitFor(() => sentTo(OWNER_ID).length >= 1, 15_000, `the reply after the restart; log:\n${b.logText()}`);
  // The redelivered update was read (the offset moved past it) and dropped as seen.
  await waitFor(() => tg.confirmedUpTo() > 0 && tg.calls.filter((c) => c.method === "getUpdates").length >= 3, 10_000, "more polls");
  await Bun.sleep(1500);
  expect(sentTo(OWNER_ID).map((s) => s.text)).toEqual(["the one answer"]);
  expect(fake.requests).toHaveLength(1);
}, 60_000);

test("in a group only a message naming the bot or replying to it is answered; a stranger gets no tools; a malformed update is skipped", async () => {
  const b = await telegramBridge(`owner = "${OWNER_ID}"`);
  await startDaemon(b);
  await connected(b);
  const group = -100777;
  tg.push({ message: { message_id: 1, chat: { id: 5, type: "private" } } }); // no date, no sender: malformed
  tg.say("just chatting", { chat: group, from: STRANGER_ID });
  fake.queue(text("group answer"), text("reply answer"));
  tg.say("@scv_test_bot what time is it?", { chat: group, from: STRANGER_ID, entities: [{ type: "mention", offset: 0, length: 13 }] });
  await waitFor(() => sentTo(group).length >= 1, 15_000, `the group answer; log:\n${b.logText()}`);
  tg.say("and you?", { chat: group, from: STRANGER_ID, reply_to_bot: true });
  await waitFor(() => sentTo(group).length >= 2, 15_000, "the reply answer");
  expect(fake.requests).toHaveLength(2);
  const prompt = JSON.stringify(fake.requests[0]!.body.input ?? fake.requests[0]!.body.messages);
  expect(prompt).toContain("what time is it?");
  expect(prompt).not.toContain("@scv_test_bot");
  expect(JSON.stringify(fake.requests[0]!.body.tools ?? [])).toBe("[]");
  expect(b.logText()).toContain("is malformed and was skipped");
  expect(b.logText()).toContain("a group message not addressed to the bot");
}, 60_000);

test("a rejected token stops the channel with the reason; scv doctor says so", async () => {
  const b = await telegramBridge("", "123456789:AAwrongwrongwrongwrongwrongwrongwro");
  await startDaemon(b);
  await waitFor(async () => (await state(b))?.state === "paused", 10_000, `the channel to stop; log:\n${b.logText()}`);
  expect((await state(b)).reason).toContain("Telegram rejected the bot token (401");
  expect(b.logText()).toContain("check TELEGRAM_BOT_TOKEN");
  const doctor = await scv(b, ["doctor"]);
  expect(doctor.stdout).toContain("Telegram rejected the bot token");
  expect(doctor.stdout).not.toContain("AAwrongwrong");
  expect(b.logText()).not.toContain("AAwrongwrong");
  // It does not keep hammering the Bot API.
  const calls = tg.calls.length;
  await Bun.sleep(1500);
  expect(tg.calls.length).toBe(calls);
}, 60_000);

test("a streamed reply is one message: sent as a draft, edited at a safe rate, then edited into the finished HTML reply", async () => {
  const model = await startFakeModel({ frameDelayMs: 60 });
  try {
    const b = await telegramBridge(`owner = "${OWNER_ID}"`, undefined, model.url);
    await startDaemon(b);
    await connected(b);
    const answer = `**Done.** ${"streaming words ".repeat(14).trim()}`; // 60 frames of 4 characters: about 4 s
    model.queue(text(answer));
    const asked = tg.say("stream please");
    await waitFor(() => tg.calls.some((c) => c.method === "editMessageText" && c.body.parse_mode === "HTML"), 20_000, `the finished reply; log:\n${b.logText()}`);
    const sends = tg.calls.filter((c) => c.method === "sendMessage");
    expect(sends).toHaveLength(1); // the draft; the finished reply is an edit of it
    expect(sends[0]!.body.parse_mode).toBeUndefined();
    expect(sends[0]!.body.reply_parameters.message_id).toBe(asked);
    const edits = tg.calls.filter((c) => c.method === "editMessageText");
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(edits.every((e) => e.body.message_id === tg.sent[0]!.message_id)).toBe(true);
    const streamed = [sends[0]!, ...edits.slice(0, -1)];
    for (let i = 1; i < streamed.length; i++) expect(streamed[i]!.at - streamed[i - 1]!.at).toBeGreaterThanOrEqual(1400);
    // Each draft is a longer start of the answer; the last edit is the whole answer as HTML.
    for (const d of streamed) expect(answer.startsWith(d.body.text)).toBe(true);
    expect(edits.at(-1)!.body.text).toBe(`<b>Done.</b> ${"streaming words ".repeat(14).trim()}`);
    expect(tg.sent).toHaveLength(1);
  } finally {
    await model.close();
  }
}, 60_000);

/** Presses a button of a message the bot sent, as the owner (a callback_query update). */
function press(message: { message_id: number; chat_id: string; text: string }, data: string, from = OWNER_ID): string {
  const id = `cbq${Math.random().toString(36).slice(2, 10)}`;
  tg.push({ callback_query: { id, from: { id: from, is_bot: false, first_name: "Owner" }, chat_instance: "-77", data, message: { message_id: message.message_id, from: { id: tg.bot.id, is_bot: true, first_name: "SCV", username: tg.bot.username }, chat: { id: Number(message.chat_id), type: "private", first_name: "Owner" }, date: Math.floor(Date.now() / 1000), text: message.text.replace(/<[^>]+>/g, "") } } });
  return id;
}
const keyboardOf = (call: { body: any }) => (call.body.reply_markup?.inline_keyboard ?? []) as Array<Array<{ text: string; callback_data: string }>>;

test("an approval is a card with buttons: Allow once runs the call, the card says so; a second press finds it no longer waiting", async () => {
  const b = await telegramBridge(`owner = "${OWNER_ID}"`);
  fake.queue(toolCalls([{ name: "write", arguments: { path: "tg.txt", content: "by button\n", mode: "create" } }]), text("written"));
  await startDaemon(b);
  await connected(b);
  tg.say("write the file");
  await waitFor(() => tg.calls.some((c) => c.method === "sendMessage" && keyboardOf(c).length), 20_000, `the approval card; log:\n${b.logText()}`);
  const cardCall = tg.calls.find((c) => c.method === "sendMessage" && keyboardOf(c).length)!;
  const buttons = keyboardOf(cardCall)[0]!;
  expect(buttons.map((x) => x.text)).toEqual(["Allow once", "Always", "Deny"]);
  expect(visible(cardCall.body.text)).toContain("SCV asks to run write");
  const card = tg.sent.find((m) => m.text === cardCall.body.text)!;
  // Someone else's press (a forwarded card, a forged callback) answers nothing.
  const forged = press(card, buttons[0]!.callback_data, STRANGER_ID);
  await waitFor(() => tg.calls.some((c) => c.method === "answerCallbackQuery" && c.body.callback_query_id === forged), 10_000, "the forged press's answer");
  expect(tg.calls.find((c) => c.method === "answerCallbackQuery" && c.body.callback_query_id === forged)!.body.text).toBe("Only the owner of this SCV answers its questions.");
  expect(fake.requests).toHaveLength(1);
  expect(tg.calls.some((c) => c.method === "editMessageText" && c.body.message_id === card.message_id)).toBe(false); // the card still waits
  const first = press(card, buttons[0]!.callback_data);
  await waitFor(() => sentTo(OWNER_ID).some((m) => m.text === "written"), 20_000, `the reply; log:\n${b.logText()}`);
  expect(readFileSync(join(b.workspace, "tg.txt"), "utf8")).toBe("by button\n");
  const ack = tg.calls.find((c) => c.method === "answerCallbackQuery" && c.body.callback_query_id === first)!;
  expect(ack.body.text).toBe("Chosen: Allowed once");
  const edit = tg.calls.find((c) => c.method === "editMessageText" && c.body.message_id === card.message_id)!;
  expect(edit.body.text).toEndWith("→ Allowed once");
  expect(edit.body.reply_markup).toBeUndefined();
  // A press on the same card later: acknowledged, nothing runs.
  const late = press(card, buttons[2]!.callback_data);
  await waitFor(() => tg.calls.some((c) => c.method === "answerCallbackQuery" && c.body.callback_query_id === late), 10_000, "the late press's answer");
  expect(tg.calls.find((c) => c.method === "answerCallbackQuery" && c.body.callback_query_id === late)!.body.text).toBe("SCV is no longer waiting for this.");
  expect(fake.requests).toHaveLength(2);
}, 60_000);

test("the model's question comes with its choices as buttons; a press answers it", async () => {
  const b = await telegramBridge(`owner = "${OWNER_ID}"`);
  fake.queue(toolCalls([{ name: "clarify", arguments: { question: "Which database?", choices: ["SQLite", "PostgreSQL"] } }]), text("Setting up PostgreSQL."));
  await startDaemon(b);
  await connected(b);
  tg.say("set up storage");
  await waitFor(() => tg.calls.some((c) => c.method === "sendMessage" && keyboardOf(c).length), 20_000, `the question; log:\n${b.logText()}`);
  const q = tg.calls.find((c) => c.method === "sendMessage" && keyboardOf(c).length)!;
  expect(keyboardOf(q).map((row) => row[0]!.text)).toEqual(["SQLite", "PostgreSQL"]);
  press(tg.sent.find((m) => m.text === q.body.text)!, keyboardOf(q)[1]![0]!.callback_data);
  await waitFor(() => sentTo(OWNER_ID).some((m) => m.text === "Setting up PostgreSQL."), 20_000, `the reply; log:\n${b.logText()}`);
  const outputs = (fake.requests.at(-1)!.body.input as any[]).filter((i) => i.type === "function_call_output").map((i) => String(i.output));
  expect(outputs).toEqual(["The person answered: PostgreSQL"]);
}, 60_000);

const visible = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

test("a voice note is turned into text by the transcription endpoint: shown back as heard, answered; a failure is said", async () => {
  const stt = await startFakeTranscriber();
  try {
    const sttConfig = `\n[providers.stt]\nbase_url = "${stt.url}"\nmodel = "unused"\napi_key_env = "STT_KEY"\n[transcription]\nprovider = "stt"\nmodel = "whisper-1"\n`;
    const b = await telegramBridge(`owner = "${OWNER_ID}"\n${sttConfig}`);
    b.env.STT_KEY = stt.key;
    const voice = Buffer.concat([Buffer.from("OggS\u0000\u0002"), Buffer.alloc(3000, 1)]);
    tg.addFile("voice-1", voice, "voice/file_1.oga");
    tg.addFile("voice-2", voice, "voice/file_2.oga");
    stt.answers.push("please send me the report");
    fake.queue(text("Sending the report."), text("I could not hear that one."));
    await startDaemon(b);
    await connected(b);
    const voiceNote = (id: string) => ({ voice: { file_id: id, file_unique_id: `u-${id}`, duration: 3, mime_type: "audio/ogg", file_size: voice.length } });
    tg.say("", { extra: { text: undefined, ...voiceNote("voice-1") } });
    await waitFor(() => sentTo(OWNER_ID).some((m) => m.text === "Sending the report."), 20_000, `the reply; log:\n${b.logText()}`);
    expect(sentTo(OWNER_ID).map((m) => visible(m.text))).toEqual(["heard: “please send me the report”", "Sending the report."]);
    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]).toMatchObject({ model: "whisper-1", size: voice.length, auth: `Bearer ${stt.key}` });
    const prompt = JSON.stringify(fake.requests[0]!.body.input ?? fake.requests[0]!.body.messages);
    expect(prompt).toContain("[voice message (3 s), transcribed by SCV (it may mishear): please send me the report]");
    expect(prompt).toMatch(/\[file from the user: [^\]]*file_1\.oga\]|\[file from the user: [^\]]*voice-\d+\.ogg\]/);

    stt.answers.push([503, "overloaded"]);
    tg.say("", { extra: { text: undefined, ...voiceNote("voice-2") } });
    await waitFor(() => sentTo(OWNER_ID).some((m) => m.text === "I could not hear that one."), 20_000, `the second reply; log:\n${b.logText()}`);
    expect(visible(sentTo(OWNER_ID)[2]!.text)).toBe("[SCV could not turn your voice message into text: the transcription endpoint answered HTTP 503: overloaded. The audio is kept with the message.]");
    const second = JSON.stringify(fake.requests[1]!.body.input ?? fake.requests[1]!.body.messages);
    expect(second).toContain("arrived without text: turning it into text failed: the transcription endpoint answered HTTP 503: overloaded; the audio file is saved]");
    expect(b.logText()).not.toContain(stt.key);
  } finally {
    await stt.close();
  }
}, 60_000);

test("another poller (409) stops the channel with the reason; a document is saved, a photo whose file is gone is named as not saved", async () => {
  const b = await telegramBridge(`owner = "${OWNER_ID}"`);
  const pdf = Buffer.from("%PDF-1.4 the quarterly report");
  tg.addFile("doc-1", pdf, "documents/file_7.pdf");
  fake.queue(text("Got the report."));
  await startDaemon(b);
  await connected(b);
  tg.say("", { extra: { text: undefined, caption: "read this", document: { file_id: "doc-1", file_unique_id: "u-doc-1", file_name: "report.pdf", mime_type: "application/pdf", file_size: pdf.length }, photo: [{ file_id: "gone", file_unique_id: "u-gone", width: 90, height: 90 }] } });
  await waitFor(() => sentTo(OWNER_ID).some((m) => m.text === "Got the report."), 20_000, `the reply; log:\n${b.logText()}`);
  const prompt = JSON.stringify(fake.requests[0]!.body.input ?? fake.requests[0]!.body.messages);
  expect(prompt).toContain("read this");
  const saved = /\[file from the user: ([^\]]*report\.pdf)\]/.exec(prompt)![1]!;
  expect(readFileSync(saved)).toEqual(pdf);
  expect(prompt).toContain("could not be saved: Telegram getFile failed (400: Bad Request: invalid file_id)");
  // Nothing of the download is left in the channel's own directory.
  expect(readdirSync(join(b.home, "state", "channels", "telegram", "default", "downloads"))).toEqual([]);

  // One 409 (a daemon that was just stopping) is tried again; one that persists stops the channel.
  const conflict = [409, { ok: false, error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" }] as [number, unknown];
  tg.script.getUpdates = [conflict];
  await waitFor(() => b.logText().includes("trying again in 3 s"), 10_000, "a retried conflict");
  const polls = tg.calls.filter((c) => c.method === "getUpdates").length;
  await waitFor(() => tg.calls.filter((c) => c.method === "getUpdates").length > polls, 10_000, "a poll after the conflict");
  expect((await state(b)).state).toBe("connected");
  tg.script.getUpdates = [conflict, conflict, conflict];
  await waitFor(async () => (await state(b))?.state === "paused", 15_000, `the channel to stop; log:\n${b.logText()}`);
  expect((await state(b)).reason).toContain("another program is reading this bot's updates");
  expect(b.logText()).toContain("terminated by other getUpdates request");
  const doctor = await scv(b, ["doctor"]);
  expect(doctor.stdout).toMatch(/channel telegram\/default.*stopped: another program/);
}, 60_000);

test("a photo reaches a model that takes images as an image (the largest size Telegram offers)", async () => {
  const b = await telegramBridge(`owner = "${OWNER_ID}"`);
  const file = join(b.home, "config.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace("max_retries = 0\n", "max_retries = 0\nimages = true\n"));
  const small = makePng(4, 4);
  const large = makePng(32, 18);
  tg.addFile("small", small, "photos/file_1.jpg");
  tg.addFile("large", large, "photos/file_2.jpg");
  fake.queue(text("A gradient."));
  await startDaemon(b);
  await connected(b);
  const sizes = [
    { file_id: "small", file_unique_id: "us", width: 4, height: 4, file_size: small.length },
    { file_id: "large", file_unique_id: "ul", width: 32, height: 18, file_size: large.length },
  ];
  tg.say("", { extra: { text: undefined, caption: "what is this?", photo: sizes } });
  await waitFor(() => sentTo(OWNER_ID).some((m) => m.text === "A gradient."), 20_000, `the reply; log:\n${b.logText()}`);
  const user = fake.requests[0]!.body.input.at(-1);
  expect(user.content[0].text).toContain("what is this?");
  expect(user.content[1]).toEqual({ type: "input_image", image_url: `data:image/png;base64,${large.toString("base64")}`, detail: "auto" });
  expect(tg.calls.filter((c) => c.method === "getFile").map((c) => c.body.file_id)).toEqual(["large"]);
}, 60_000);
