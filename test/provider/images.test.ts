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
