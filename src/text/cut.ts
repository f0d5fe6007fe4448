// Cutting text to a size without splitting a character. Every concern that bounds text takes its cutter from
// here; the cutters differ in what they count (UTF-8 bytes or UTF-16 code units) and in what they add.

/** Cuts text to at most `limit` UTF-8 bytes on a character boundary, saying so at the end. */
export function limitText(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  const note = `\n[output truncated to ${limit} bytes]`;
  return cutUtf8(text, Math.max(0, limit - Buffer.byteLength(note))) + note;
}

/** The longest prefix of `text` within `bytes` UTF-8 bytes, never splitting a character. */
export function cutUtf8(text: string, bytes: number): string {
  const buf = Buffer.from(text);
  if (buf.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

/** The last `bytes` UTF-8 bytes of a text, starting on a character boundary. */
export function tailUtf8(text: string, bytes: number): string {
  const buf = Buffer.from(text);
  if (buf.length <= bytes) return text;
  let start = buf.length - bytes;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString("utf8");
}

/**
 * The longest prefix of `text` within `bytes` UTF-8 bytes, decoded as it falls: a character the cut splits
 * becomes one replacement character, which is dropped (as is a replacement character the text itself ends in).
 */
export function cutUtf8Decoded(text: string, bytes: number): string {
  const buf = Buffer.from(text);
  if (buf.length <= bytes) return text;
  return buf.subarray(0, Math.max(0, bytes)).toString("utf8").replace(/\uFFFD$/, "");
}

/** At most `max` characters of `text` (never half a surrogate pair), saying so when cut. */
export function clipChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}... (cut, ${text.length} characters)`;
}

/** At most `max` characters of `text`, its last one an ellipsis when cut. */
export function ellipsize(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The first `max` characters of `text` and an ellipsis when cut (so at most `max` + 1 characters). */
export function ellipsizeAfter(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
