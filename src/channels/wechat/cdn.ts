// WeChat media on the CDN: AES-128-ECB (PKCS#7) both ways. Inbound media is downloaded and decrypted;
// outbound files are encrypted with a fresh key, uploaded, and referred to by the parameter the CDN returns.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { readCapped } from "../../net/fetch";
import { MAX_INBOUND_FILE } from "../core/media";
import { IlinkTransportError, type IlinkClient } from "./api";
import { type CdnMedia, UploadUrlResponse } from "./wire";

export function encryptEcb(plain: Uint8Array, key: Buffer): Buffer {
  const cipher = createCipheriv("aes-128-ecb", key, null);
  return Buffer.concat([cipher.update(plain), cipher.final()]);
}

export function decryptEcb(data: Uint8Array, key: Buffer): Buffer {
  const decipher = createDecipheriv("aes-128-ecb", key, null);
  return Buffer.concat([decipher.update(data), decipher.final()]);
}

/** The ciphertext size of `n` plaintext bytes. */
export function paddedSize(n: number): number {
  return Math.ceil((n + 1) / 16) * 16;
}

/**
 * The 16-byte key of a media reference: an image's own hex `aeskey` wins; otherwise `aes_key` is base64 of
 * either 16 raw bytes or a 32-character hex string. Undefined when there is none (the file is plain).
 */
export function mediaKey(media: CdnMedia | undefined, hexKey?: string): Buffer | undefined {
  if (hexKey && /^[0-9a-fA-F]{32}$/.test(hexKey)) return Buffer.from(hexKey, "hex");
  if (!media?.aes_key) return undefined;
  const decoded = Buffer.from(media.aes_key, "base64");
  if (decoded.length === 16) return decoded;
  const hex = decoded.toString("latin1");
  if (/^[0-9a-fA-F]{32}$/.test(hex)) return Buffer.from(hex, "hex");
  throw new Error("the media key is neither 16 bytes nor 32 hex digits");
}

/** Downloads and decrypts one media reference; at most MAX_INBOUND_FILE bytes. */
export async function downloadMedia(client: IlinkClient, media: CdnMedia | undefined, signal: AbortSignal, hexKey?: string): Promise<Buffer> {
  if (!media?.encrypt_query_param && !media?.full_url) throw new Error("the message names no media to download");
  const url =
    media.full_url && client.allows(media.full_url)
      ? media.full_url
      : media.encrypt_query_param
        ? client.cdnUrl(`download?encrypted_query_param=${encodeURIComponent(media.encrypt_query_param)}`)
        : media.full_url!; // refused by the host check, with a clear error
  const res = await client.fetch(url, { method: "GET", signal });
  if (!res.ok) throw new IlinkTransportError(`the WeChat CDN answered HTTP ${res.status} for a download`, res.status);
  const tooLarge = `the file is larger than ${MAX_INBOUND_FILE / 1048576} MiB`;
  if (Number(res.headers.get("content-length") ?? 0) > MAX_INBOUND_FILE + 16) throw new Error(tooLarge);
  const { bytes, truncated } = await readCapped(res, MAX_INBOUND_FILE + 16, signal); // never more in memory
  if (truncated) throw new Error(tooLarge);
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const key = mediaKey(media, hexKey);
  return key ? decryptEcb(data, key) : data;
}

export interface UploadedMedia {
  media: CdnMedia;
  /** Ciphertext size (images' mid_size, videos' video_size). */
  cipherSize: number;
  rawSize: number;
}

/** Encrypts and uploads a file for `toUser`; 5xx answers are retried up to 3 times. */
export async function uploadMedia(client: IlinkClient, plain: Buffer, mediaType: number, toUser: string, signal?: AbortSignal): Promise<UploadedMedia> {
  const key = randomBytes(16);
  const filekey = randomBytes(16).toString("hex");
  const cipher = encryptEcb(plain, key);
  const target = await client.post(
    "getuploadurl",
    {
      filekey,
      media_type: mediaType,
      to_user_id: toUser,
      rawsize: plain.length,
      rawfilemd5: createHash("md5").update(plain).digest("hex"),
      filesize: cipher.length,
      no_need_thumb: true,
      aeskey: key.toString("hex"),
    },
    UploadUrlResponse,
    signal,
  );
  const url =
    target.upload_full_url && client.allows(target.upload_full_url)
      ? target.upload_full_url
      : target.upload_param
        ? client.cdnUrl(`upload?encrypted_query_param=${encodeURIComponent(target.upload_param)}&filekey=${encodeURIComponent(filekey)}`)
        : undefined;
  if (!url) throw new IlinkTransportError("WeChat getuploadurl named no upload target on the configured CDN host");
  let lastError = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    const res = await client.fetch(url, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: cipher, signal });
    await res.arrayBuffer().catch(() => undefined); // draining the response only; its status is judged below
    const param = res.headers.get("x-encrypted-param");
    if (res.ok && param) {
      return { media: { encrypt_query_param: param, aes_key: Buffer.from(key.toString("hex")).toString("base64"), encrypt_type: 1 }, cipherSize: cipher.length, rawSize: plain.length };
    }
    lastError = res.ok ? "the CDN did not return x-encrypted-param" : `HTTP ${res.status}${res.headers.get("x-error-message") ? ` (${res.headers.get("x-error-message")})` : ""}`;
    if (res.status < 500) break;
  }
  throw new IlinkTransportError(`the WeChat CDN refused the upload: ${lastError}`);
}
