// Feishu content both ways: what users send as model text plus resources, the model's markdown as parts.
import { expect, test } from "bun:test";
import { imageName, inboundContent, outboundParts } from "../../../src/channels/feishu/render";

const BOT = "ou_bot";

test("text: mention placeholders become names and the bot's own mention is dropped", () => {
  const mentions = [
    { key: "@_user_1", id: { open_id: BOT }, name: "SCV" },
    { key: "@_user_2", id: { open_id: "ou_alice" }, name: "Alice" },
  ];
  expect(inboundContent("text", JSON.stringify({ text: "@_user_1 ask @_user_2 about it" }), mentions, BOT)).toEqual({ text: "ask @Alice about it", resources: [] });
});

test("rich text: paragraphs, links, code and embedded images", () => {
  const post = {
    zh_cn: {
      title: "Plan",
      content: [
        [{ tag: "text", text: "see " }, { tag: "a", href: "https://x.test", text: "this" }],
        [{ tag: "img", image_key: "img_1" }],
        [{ tag: "code_block", language: "TS", text: "let a = 1" }],
      ],
    },
  };
  const c = inboundContent("post", JSON.stringify(post), [], BOT);
  expect(c.text).toBe("Plan\nsee [this](https://x.test)\n\n\n```TS\nlet a = 1\n```");
  expect(c.resources).toEqual([{ key: "img_1", type: "image", name: "img_1.png" }]);
});

test("images, files and voice become resources; a voice message is marked voice (the core says there is no transcript, or transcribes it)", () => {
  expect(inboundContent("image", '{"image_key":"img_9"}', [], BOT).resources).toEqual([{ key: "img_9", type: "image", name: "img_9.png" }]);
  expect(inboundContent("file", '{"file_key":"f_1","file_name":"a.pdf"}', [], BOT).resources).toEqual([{ key: "f_1", type: "file", name: "a.pdf" }]);
  const voice = inboundContent("audio", '{"file_key":"f_2","duration":4200}', [], BOT);
  expect(voice.text).toBe("");
  expect(voice.resources).toEqual([{ key: "f_2", type: "file", name: "voice-f_2.opus", voice: { seconds: 4 } }]);
  expect(inboundContent("sticker", "{}", [], BOT).text).toBe("[a Feishu sticker message, which SCV cannot read]");
  expect(inboundContent("text", "not json", [], BOT).text).toBe("");
});

test("downloaded images are named by their content", () => {
  expect(imageName("k", new Uint8Array([0xff, 0xd8, 0xff]))).toBe("k.jpg");
  expect(imageName("k", new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe("k.png");
});

test("plain replies go as text, markdown as a post with code blocks, long ones split at paragraphs", () => {
  expect(outboundParts("just words")).toEqual([{ msgType: "text", content: { text: "just words" }, text: "just words" }]);
  expect(outboundParts("")).toEqual([]);
  const [post] = outboundParts("**Done.**\n\n```bash\nls -l\n```\nafter");
  expect(post).toEqual({
    msgType: "post",
    text: "**Done.**\n\n```bash\nls -l\n```\nafter",
    content: { zh_cn: { title: "", content: [[{ tag: "md", text: "**Done.**" }], [{ tag: "code_block", language: "BASH", text: "ls -l" }], [{ tag: "md", text: "after" }]] } },
  });
  const long = Array.from({ length: 30 }, (_, i) => `${i}`.padEnd(500, "x")).join("\n\n");
  const parts = outboundParts(long);
  expect(parts.length).toBe(2);
  expect(parts.map((p) => (p.content as { text: string }).text).join("\n\n")).toBe(long);
  expect(parts.every((p) => (p.content as { text: string }).text.length <= 8000)).toBe(true);
});
