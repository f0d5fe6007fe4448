// An outgoing message as WeChat parts: text split at the platform's limit on paragraph boundaries, then one
// part per file (WeChat takes one item per sendmessage), each file routed as image, video or file by its name.
import { extname } from "node:path";
import type { OutboundFile } from "../core/adapter";
import { ItemType, type MessageItem, UploadMediaType } from "./wire";
import type { UploadedMedia } from "./cdn";

/** Characters per WeChat text message. */
export const TEXT_LIMIT = 4000;

export type Part = { kind: "text"; text: string } | { kind: "file"; file: OutboundFile };

/** Packs pieces joined by `sep` into chunks of at most `limit` characters; a piece too long is split by `split`. */
function pack(pieces: string[], sep: string, limit: number, split: (piece: string) => string[]): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const piece of pieces) {
    for (const p of piece.length > limit ? split(piece) : [piece]) {
      if (current && current.length + sep.length + p.length > limit) {
        chunks.push(current);
        current = p;
      } else current = current ? `${current}${sep}${p}` : p;
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

function hardSplit(line: string, limit: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > limit) {
    const space = rest.lastIndexOf(" ", limit);
    const cut = space > limit / 2 ? space : limit;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^ /, "");
  }
  if (rest) out.push(rest);
  return out;
}

/** Splits on paragraph boundaries (blank lines), then lines, then words; no chunk exceeds `limit`. */
export function splitText(text: string, limit = TEXT_LIMIT): string[] {
  if (text.length <= limit) return text ? [text] : [];
  return pack(text.split(/\n{2,}/), "\n\n", limit, (para) => pack(para.split("\n"), "\n", limit, (line) => hardSplit(line, limit)));
}

export function partsOf(text: string, files: OutboundFile[], limit = TEXT_LIMIT): Part[] {
  return [...splitText(text, limit).map((t): Part => ({ kind: "text", text: t })), ...files.map((file): Part => ({ kind: "file", file }))];
}

const IMAGE = new Set([".jpg", ".jpeg", ".png", ".gif", ".webp", ".bmp"]);
const VIDEO = new Set([".mp4", ".mov", ".m4v", ".webm", ".3gp"]);

export function uploadTypeOf(name: string): number {
  const ext = extname(name).toLowerCase();
  if (IMAGE.has(ext)) return UploadMediaType.IMAGE;
  if (VIDEO.has(ext)) return UploadMediaType.VIDEO;
  return UploadMediaType.FILE;
}

export function textItem(text: string): MessageItem {
  return { type: ItemType.TEXT, text_item: { text } };
}

export function mediaItem(type: number, name: string, uploaded: UploadedMedia): MessageItem {
  if (type === UploadMediaType.IMAGE) return { type: ItemType.IMAGE, image_item: { media: uploaded.media, mid_size: uploaded.cipherSize } };
  if (type === UploadMediaType.VIDEO) return { type: ItemType.VIDEO, video_item: { media: uploaded.media, video_size: uploaded.cipherSize } };
  return { type: ItemType.FILE, file_item: { media: uploaded.media, file_name: name, len: String(uploaded.rawSize) } };
}
