// Bounded capture of one output stream: the first bytes (head), the last bytes (tail, a fixed ring buffer)
// and exact totals. Memory is at most `limit` bytes whatever the child writes, and only what was written: the head
// grows as output comes (a hook or a quiet command allocates nothing), the tail ring once the head is full.
import type { CapturedStream } from "./types";

const NEWLINE = 10;

const EMPTY = new Uint8Array(0);
const FIRST_HEAD_BYTES = 4096;

export class StreamCapture {
  private head: Uint8Array = EMPTY;
  private headLen = 0;
  private readonly headCap: number;
  private readonly ringCap: number;
  private ring: Uint8Array = EMPTY;
  private ringPos = 0; // next write position
  private ringLen = 0;
  private totalBytes = 0;
  private newlines = 0;
  private lastByte = -1;

  constructor(limit: number) {
    const total = Math.max(2, Math.floor(limit));
    this.headCap = Math.floor(total / 2);
    this.ringCap = total - this.headCap;
  }

  /** Room for `more` head bytes (up to the head's share): the buffer doubles as output comes. */
  private growHead(more: number): void {
    const want = Math.min(this.headCap, this.headLen + more);
    if (want <= this.head.length) return;
    const grown = new Uint8Array(Math.min(this.headCap, Math.max(want, FIRST_HEAD_BYTES, this.head.length * 2)));
    grown.set(this.head.subarray(0, this.headLen));
    this.head = grown;
  }

  push(chunk: Uint8Array): void {
    const n = chunk.length;
    if (n === 0) return;
    this.totalBytes += n;
    this.newlines += countNewlines(chunk);
    this.lastByte = chunk[n - 1]!;
    let rest = chunk;
    if (this.headLen < this.headCap) {
      this.growHead(n);
      const take = Math.min(this.head.length - this.headLen, n);
      this.head.set(chunk.subarray(0, take), this.headLen);
      this.headLen += take;
      rest = chunk.subarray(take);
    }
    if (rest.length) this.pushTail(rest);
  }

  private pushTail(bytes: Uint8Array): void {
    if (!this.ring.length) this.ring = new Uint8Array(this.ringCap);
    const cap = this.ring.length;
    if (bytes.length >= cap) {
      this.ring.set(bytes.subarray(bytes.length - cap));
      this.ringPos = 0;
      this.ringLen = cap;
      return;
    }
    const first = Math.min(bytes.length, cap - this.ringPos);
    this.ring.set(bytes.subarray(0, first), this.ringPos);
    if (first < bytes.length) this.ring.set(bytes.subarray(first), 0);
    this.ringPos = (this.ringPos + bytes.length) % cap;
    this.ringLen = Math.min(cap, this.ringLen + bytes.length);
  }

  /** The tail bytes in order. */
  private tailBytes(): Uint8Array {
    const cap = this.ring.length;
    if (this.ringLen < cap || !cap) return this.ring.slice(0, this.ringLen);
    const out = new Uint8Array(cap);
    out.set(this.ring.subarray(this.ringPos));
    out.set(this.ring.subarray(0, this.ringPos), cap - this.ringPos);
    return out;
  }

  result(): CapturedStream {
    const totalLines = this.newlines + (this.totalBytes > 0 && this.lastByte !== NEWLINE ? 1 : 0);
    const head = this.head.subarray(0, this.headLen);
    const tail = this.tailBytes();
    const omitted = this.totalBytes - head.length - tail.length;
    const decoder = new TextDecoder();
    if (omitted === 0) {
      const all = new Uint8Array(head.length + tail.length);
      all.set(head);
      all.set(tail, head.length);
      const text = decoder.decode(all);
      return { text, totalBytes: this.totalBytes, totalLines, truncated: false, headBytes: all.length, tailBytes: 0, omittedBytes: 0 };
    }
    // Cut on UTF-8 character boundaries so neither side shows a broken character.
    const headShown = head.subarray(0, utf8BoundaryBefore(head, head.length));
    const tailShown = tail.subarray(utf8BoundaryAfter(tail, 0));
    const dropped = this.totalBytes - headShown.length - tailShown.length;
    const text = `${decoder.decode(headShown)}\n[... ${dropped} bytes omitted ...]\n${decoder.decode(tailShown)}`;
    return {
      text,
      totalBytes: this.totalBytes,
      totalLines,
      truncated: true,
      headBytes: headShown.length,
      tailBytes: tailShown.length,
      omittedBytes: dropped,
    };
  }
}

/** Counts "\n": indexOf (vectorised) while lines are long, a plain loop once they turn out dense. */
export function countNewlines(b: Uint8Array): number {
  let n = 0;
  let i = b.indexOf(NEWLINE);
  while (i !== -1) {
    n++;
    // Dense text (short lines) is faster to scan byte by byte than to call indexOf per line.
    if (n > 32 && i < n * 64) {
      for (let j = i + 1; j < b.length; j++) if (b[j] === NEWLINE) n++;
      return n;
    }
    i = b.indexOf(NEWLINE, i + 1);
  }
  return n;
}

/** The largest end <= `end` that does not split a UTF-8 sequence (a cut sequence at the end is dropped). */
function utf8BoundaryBefore(b: Uint8Array, end: number): number {
  let i = end;
  let back = 0;
  while (i > 0 && back < 4 && (b[i - 1]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return end;
  const lead = b[i - 1]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  // Complete sequence, or not UTF-8 at all: keep the bytes as they are.
  return need === 1 || end - (i - 1) >= need ? end : i - 1;
}

/** The first index >= `start` that is not a UTF-8 continuation byte (skips at most 3). */
function utf8BoundaryAfter(b: Uint8Array, start: number): number {
  let i = start;
  while (i < b.length && i - start < 3 && (b[i]! & 0xc0) === 0x80) i++;
  return i;
}
