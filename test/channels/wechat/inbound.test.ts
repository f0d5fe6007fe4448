import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IlinkClient } from "../../../src/channels/wechat/api";
import { messageIdOf, toInbound } from "../../../src/channels/wechat/inbound";
import { WeixinMessage } from "../../../src/channels/wechat/wire";
import { type FakeIlink, startFakeIlink } from "../../fake/ilink-server";

let ilink: FakeIlink;
let client: IlinkClient;
let tmp: string;
beforeAll(async () => {
  ilink = await startFakeIlink();
  client = new IlinkClient({ baseUrl: ilink.url, cdnBaseUrl: ilink.cdnUrl }, ilink.token);
  tmp = mkdtempSync(join(tmpdir(), "scv-wechat-in-"));
});
afterAll(async () => {
  await ilink.close();
  rmSync(tmp, { recursive: true, force: true });
});

const signal = new AbortController().signal;

test("the message ID falls back from message_id to client_id to seq", () => {
  expect(messageIdOf(WeixinMessage.parse({ message_id: 7 }))).toBe("7");
  expect(messageIdOf(WeixinMessage.parse({ client_id: "abc", seq: 3 }))).toBe("client:abc");
  expect(messageIdOf(WeixinMessage.parse({ seq: 3 }))).toBe("seq:3");
  expect(messageIdOf(WeixinMessage.parse({}))).toBeUndefined();
});

test("a quoted text, a group and a voice message without a transcript", async () => {
  const silk = Buffer.from("#!SILK_V3 audio");
  const voice = ilink.addMedia(silk);
  const msg = WeixinMessage.parse({
    message_id: 42,
    from_user_id: "someone@im.wechat",
    group_id: "123@chatroom",
    item_list: [
      { type: 1, text_item: { text: "what about this?" }, ref_msg: { message_item: { type: 1, text_item: { text: "the earlier plan" } } } },
      { type: 3, voice_item: { media: voice.media, encode_type: 6 } },
    ],
  });
  const m = await toInbound(msg, "42", client, join(tmp, "a"), signal);
  expect(m).toMatchObject({ id: "42", conversation: "123@chatroom", from: "someone@im.wechat", direct: false, text: "what about this?", quote: "the earlier plan" });
  expect(m.transcript).toBeUndefined();
  expect(m.files.length).toBe(1);
  expect(m.files[0]!.name).toEndWith(".silk");
  expect(readFileSync(m.files[0]!.path!)).toEqual(silk);
});

test("media that cannot be fetched is reported, not dropped silently", async () => {
  const msg = WeixinMessage.parse({
    message_id: 43,
    from_user_id: ilink.ownerId,
    item_list: [{ type: 4, file_item: { media: { encrypt_query_param: "no-such-media", aes_key: "" }, file_name: "gone.pdf" } }],
  });
  const m = await toInbound(msg, "43", client, join(tmp, "b"), signal);
  expect(m.direct).toBe(true);
  expect(m.files).toEqual([{ name: "gone.pdf", error: "the WeChat CDN answered HTTP 404 for a download" }]);
});
