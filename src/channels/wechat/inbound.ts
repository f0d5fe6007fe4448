// One WeChat message as the core's InboundMessage: its text, what it quoted, a voice message's own transcript,
// and its images, files and videos downloaded and decrypted into a private temporary directory (the core
// copies them into the conversation's media, then the adapter removes the temporaries).
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createPrivateFile, ensurePrivateDir } from "../../fs/private-file";
import type { InboundFile, InboundMessage } from "../core/adapter";
import { safeFileName } from "../core/media";
import type { IlinkClient } from "./api";
import { downloadMedia } from "./cdn";
import { ItemType, type MessageItem, type WeixinMessage } from "./wire";

/** The platform ID deduplication keys on: message_id, else client_id, else seq. */
export function messageIdOf(msg: WeixinMessage): string | undefined {
  if (msg.message_id !== undefined && msg.message_id !== "") return String(msg.message_id);
  if (msg.client_id) return `client:${msg.client_id}`;
  if (msg.seq !== undefined) return `seq:${msg.seq}`;
  return undefined;
}

/** Group messages belong to the group; everything else is a direct chat with its sender. */
export function conversationOf(msg: WeixinMessage): string {
  return msg.group_id || msg.from_user_id || "";
}

function itemText(item: MessageItem | undefined): string {
  if (!item) return "";
  if (item.type === ItemType.TEXT || item.text_item) return item.text_item?.text ?? "";
  if (item.type === ItemType.VOICE || item.voice_item) return item.voice_item?.text ?? "[voice message]";
  if (item.type === ItemType.IMAGE || item.image_item) return "[image]";
  if (item.type === ItemType.FILE || item.file_item) return `[file ${item.file_item?.file_name ?? ""}]`.replace(" ]", "]");
  if (item.type === ItemType.VIDEO || item.video_item) return "[video]";
  return "";
}

function sniffImageExt(data: Buffer): string {
  if (data[0] === 0x89 && data[1] === 0x50) return "png";
  if (data[0] === 0x47 && data[1] === 0x49) return "gif";
  if (data.subarray(8, 12).toString("latin1") === "WEBP") return "webp";
  return "jpg";
}

export async function toInbound(msg: WeixinMessage, id: string, client: IlinkClient, tmpDir: string, signal: AbortSignal): Promise<InboundMessage> {
  const texts: string[] = [];
  const transcripts: string[] = [];
  const quotes: string[] = [];
  const files: InboundFile[] = [];
  let n = 0;
  const save = async (name: string, fetch: () => Promise<Buffer>, ext?: (data: Buffer) => string) => {
    n++;
    try {
      const data = await fetch();
      const fileName = safeFileName(ext ? `${name}.${ext(data)}` : name);
      ensurePrivateDir(tmpDir);
      const path = join(tmpDir, `${randomBytes(6).toString("hex")}-${fileName}`);
      createPrivateFile(path, data);
      files.push({ name: fileName, path });
    } catch (e) {
      if (signal.aborted) throw e;
      files.push({ name: safeFileName(ext ? `${name}.bin` : name), error: (e as Error).message });
    }
  };
  const stem = `wechat-${id.replace(/[^\w-]/g, "")}`;
  for (const item of msg.item_list) {
    if (item.ref_msg) {
      const quoted = item.ref_msg.title || itemText(item.ref_msg.message_item);
      if (quoted) quotes.push(quoted);
    }
    if (item.text_item) texts.push(item.text_item.text ?? "");
    else if (item.voice_item) {
      if (item.voice_item.text) transcripts.push(item.voice_item.text);
      else {
        // No transcript from WeChat: the core turns the SILK audio into text when [transcription] is set.
        await save(`${stem}-voice-${n + 1}.silk`, () => downloadMedia(client, item.voice_item!.media, signal));
        const playtime = item.voice_item.playtime;
        files[files.length - 1]!.voice = playtime ? { seconds: Math.round(playtime / 1000) } : {};
      }
    } else if (item.image_item) {
      const image = item.image_item;
      await save(`${stem}-image-${n + 1}`, () => downloadMedia(client, image.media, signal, image.aeskey), sniffImageExt);
    } else if (item.file_item) {
      const file = item.file_item;
      await save(file.file_name || `${stem}-file-${n + 1}`, () => downloadMedia(client, file.media, signal));
    } else if (item.video_item) {
      const video = item.video_item;
      await save(`${stem}-video-${n + 1}.mp4`, () => downloadMedia(client, video.media, signal));
    }
  }
  const from = msg.from_user_id ?? "";
  return {
    id,
    conversation: conversationOf(msg),
    from,
    direct: !msg.group_id,
    text: texts.join("\n"),
    files,
    ...(quotes.length ? { quote: quotes.join("\n") } : {}),
    ...(transcripts.length ? { transcript: transcripts.join("\n") } : {}),
  };
}
