import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, ftruncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatBody } from "../../src/provider/chat";
import { IMAGE_MAX_FILE_BYTES, IMAGE_SEND_MAX_BYTES, imageRef, prepareImages, sniffImage } from "../../src/provider/images";
import { imageSupportFor } from "../../src/provider/models";
import { responsesBody } from "../../src/provider/responses";
import type { HistoryItem } from "../../src/provider/types";
import { ChatRequest, ResponsesRequest } from "../../src/provider/wire";
import { makePng } from "../fake/png";
import { request } from "./helpers";

const dir = mkdtempSync(join(tmpdir(), "scv-images-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, bytes: Uint8Array) => {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
};
/** A sparse file of `size` bytes that starts with `head` (cheap, however large). */
function sparse(name: string, head: Uint8Array, size: number): string {
  const p = file(name, head);
  const fd = openSync(p, "r+");
  ftruncateSync(fd, size);
  closeSync(fd);
  return p;
}

describe("image files", () => {
  test("the type comes from the bytes, not the name", () => {
    expect(sniffImage(makePng(1, 1))).toBe("image/png");
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(sniffImage(Buffer.from("GIF89a"))).toBe("image/gif");
    expect(sniffImage(Buffer.from("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(() => imageRef(file("fake.png", Buffer.from("root:x:0:0")))).toThrow('is not a PNG, JPEG, GIF or WebP image');
  });

  test("over the file limit, an image is refused with its size and the limit; a large GIF too (it is not downscaled)", () => {
    const huge = sparse("huge.png", makePng(1, 1), IMAGE_MAX_FILE_BYTES + 1);
    expect(() => imageRef(huge)).toThrow(`is 20.0 MiB (${IMAGE_MAX_FILE_BYTES + 1} bytes), over the 20.0 MiB limit for images`);
    const gif = sparse("big.gif", Buffer.from("GIF89a"), IMAGE_SEND_MAX_BYTES + 1);
    expect(() => imageRef(gif)).toThrow("over the 4.0 MiB limit for images sent to the model, and GIFs are not downscaled");
  });
});

describe("request bodies", () => {
  test("a prompt's images and the images tools returned are image parts on both wire APIs; a file gone since is a note", async () => {
    const png = makePng(2, 2);
    const present = imageRef(file("a.png", png));
    const gone = imageRef(file("b.png", png));
    rmSync(gone.path);
    const history: HistoryItem[] = [
      { role: "user", content: "look", images: [present] },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }] },
      { role: "tool", callId: "c1", name: "read", output: "[read b.png]" },
      { role: "images", about: "read [c1]", images: [gone] },
    ];
    await prepareImages([present, gone]);
    const url = `data:image/png;base64,${png.toString("base64")}`;
    const r = responsesBody(request({}, history), "m");
    expect(ResponsesRequest.safeParse(r).success).toBe(true);
    expect(r.input[0]).toEqual({ type: "message", role: "user", content: [{ type: "input_text", text: "look" }, { type: "input_image", image_url: url, detail: "auto" }] });
    const last = r.input.at(-1) as any;
    expect(last.content[0].text).toBe("[The image(s) returned by read [c1] follow.]");
    expect(last.content[1].text).toMatch(/^\[image ".*b\.png" cannot be opened: no such file\]$/);
    const c = chatBody(request({}, history), "m");
    expect(ChatRequest.safeParse(c).success).toBe(true);
    expect(c.messages[1]).toEqual({ role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url } }] });
    expect(c.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
  });
});

test("which models take images: the profile wins, then the family; unknown models do not", () => {
  expect(imageSupportFor("gpt-5.5", "openai").accepted).toBe(true);
  expect(imageSupportFor("openrouter/anthropic/claude-sonnet-4", "or").accepted).toBe(true);
  expect(imageSupportFor("o3-mini", "openai").accepted).toBe(false);
  expect(imageSupportFor("deepseek-chat", "ds")).toEqual({ accepted: false, reason: 'model "deepseek-chat" does not take images; use a model that does, or set images = true in [providers.ds] if it has learned to' });
  expect(imageSupportFor("my-local", "local")).toEqual({ accepted: false, reason: 'model "my-local" is not one SCV knows to take images; if it does, set images = true in [providers.local]' });
  expect(imageSupportFor("my-local", "local", true).accepted).toBe(true);
  expect(imageSupportFor("gpt-5.5", "openai", false).accepted).toBe(false);
});

test("a request carries the newest images only; older ones are named, and their loaded bytes let go", async () => {
  const { MAX_SENT_IMAGES, requestView } = await import("../../src/server/compaction");
  const refs = Array.from({ length: MAX_SENT_IMAGES + 2 }, (_, i) => imageRef(file(`p${i}.png`, makePng(1 + i, 1))));
  const history: HistoryItem[] = refs.map((ref, i) => ({ role: "user", content: `photo ${i}`, images: [ref] }));
  await prepareImages(refs);
  const view = requestView(history, history.length);
  expect(view.slice(2)).toEqual(history.slice(2));
  expect(view[0]).toEqual({ role: "user", content: "photo 0\n[images shown earlier, no longer sent: p0.png (image/png, 1 KiB); read them again to see them]" });
  expect(requestView(history, history.length)[0]).toBe(view[0]!); // the same object each time, so request text caches hold
  const { preparedImage } = await import("../../src/provider/images");
  expect("missing" in preparedImage(refs[0]!)).toBe(true);
  expect("url" in preparedImage(refs[2]!)).toBe(true);
  const body = responsesBody(request({}, view), "m");
  expect(body.input.flatMap((i: any) => i.content ?? []).filter((p: any) => p.type === "input_image").length).toBe(MAX_SENT_IMAGES);
});
