import { afterAll, beforeAll, expect, test } from "bun:test";
import { createCipheriv, randomBytes } from "node:crypto";
import { IlinkClient, IlinkError, IlinkTransportError } from "../../../src/channels/wechat/api";
import { decryptEcb, downloadMedia, encryptEcb, mediaKey, paddedSize, uploadMedia } from "../../../src/channels/wechat/cdn";
import { BaseResponse, UploadMediaType } from "../../../src/channels/wechat/wire";
import { type FakeIlink, startFakeIlink } from "../../fake/ilink-server";
import { withProxyTrap } from "../../fake/proxy-trap";

let ilink: FakeIlink;
let client: IlinkClient;
beforeAll(async () => {
  ilink = await startFakeIlink();
  client = new IlinkClient({ baseUrl: ilink.url, cdnBaseUrl: ilink.cdnUrl }, ilink.token);
});
afterAll(() => ilink.close());

test("AES-128-ECB with PKCS#7 matches node:crypto and the documented ciphertext size", () => {
  const key = randomBytes(16);
  for (const n of [0, 1, 15, 16, 17, 1000]) {
    const plain = randomBytes(n);
    const c = createCipheriv("aes-128-ecb", key, null);
    const expected = Buffer.concat([c.update(plain), c.final()]);
    expect(encryptEcb(plain, key)).toEqual(expected);
    expect(expected.length).toBe(paddedSize(n));
    expect(decryptEcb(expected, key)).toEqual(plain);
  }
});

test("media keys: base64 of raw bytes, base64 of hex, or an image's own hex key", () => {
  const key = randomBytes(16);
  expect(mediaKey({ aes_key: key.toString("base64") })).toEqual(key);
  expect(mediaKey({ aes_key: Buffer.from(key.toString("hex")).toString("base64") })).toEqual(key);
  expect(mediaKey({ aes_key: "bm9wZQ==" }, key.toString("hex"))).toEqual(key);
  expect(mediaKey({})).toBeUndefined();
  expect(() => mediaKey({ aes_key: "bm9wZQ==" })).toThrow("neither 16 bytes nor 32 hex digits");
});

test("download decrypts what the CDN holds; upload encrypts so the receiver can decrypt it", async () => {
  const plain = Buffer.from("a file from the owner ".repeat(20));
  const { media } = ilink.addMedia(plain);
  expect(await downloadMedia(client, media, new AbortController().signal)).toEqual(plain);
  const up = await uploadMedia(client, plain, UploadMediaType.FILE, ilink.ownerId);
  expect(up.cipherSize).toBe(paddedSize(plain.length));
  expect(ilink.uploaded(up.media)).toEqual(plain);
});

test("no request leaves for a host other than the configured API and CDN hosts", async () => {
  let hits = 0;
  const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (hits++, new Response("x")) });
  try {
    const elsewhere = `http://127.0.0.1:${other.port}/download`;
    expect(client.allows(elsewhere)).toBe(false);
    await expect(client.fetch(elsewhere, { method: "GET" })).rejects.toThrow("only the configured iLink host and its CDN host");
    // A download URL the server hands back on another host is not followed; the CDN path is used instead.
    const { media } = ilink.addMedia(Buffer.from("ok"));
    expect((await downloadMedia(client, { ...media, full_url: elsewhere }, new AbortController().signal)).toString()).toBe("ok");
    expect(hits).toBe(0);
  } finally {
    other.stop(true);
  }
});

test("proxy variables are ignored; ret != 0 is an IlinkError, HTTP failures a transport error", async () => {
  const connections = await withProxyTrap(async () => {
    await client.post("msg/notifystart", {}, BaseResponse);
  });
  expect(connections).toBe(0);
  ilink.failSends = 1;
  const msg = { to_user_id: ilink.ownerId, client_id: "c1", item_list: [{ type: 1, text_item: { text: "x" } }], context_token: "t" };
  const err = await client.post("sendmessage", { msg }, BaseResponse).catch((e) => e);
  expect(err).toBeInstanceOf(IlinkError);
  expect(err.code).toBe(-2);
  ilink.failPolls = 1;
  await expect(client.post("getupdates", { get_updates_buf: "" }, BaseResponse)).rejects.toBeInstanceOf(IlinkTransportError);
  const stale = new IlinkClient({ baseUrl: ilink.url, cdnBaseUrl: ilink.cdnUrl }, "old-token");
  ilink.staleTokens.add("old-token");
  const e14 = await stale.post("getupdates", { get_updates_buf: "" }, BaseResponse).catch((e) => e);
  expect(e14.stale).toBe(true);
});
