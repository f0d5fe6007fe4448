// The Feishu long connection's frame, protobuf `pbbp2.Frame` (field numbers from the official SDK's
// ws-client/proto-buf), encoded and decoded by hand so the fake endpoint does not share the SDK's code.
export interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  /** 0 control (ping, pong), 1 data (events and their acks). */
  method: number;
  headers: Array<{ key: string; value: string }>;
  payloadEncoding?: string;
  payloadType?: string;
  payload?: Uint8Array;
  LogIDNew?: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function varint(out: number[], n: number) {
  let v = BigInt(n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
}

function bytesField(out: number[], field: number, bytes: Uint8Array) {
  varint(out, (field << 3) | 2);
  varint(out, bytes.length);
  for (const b of bytes) out.push(b);
}

export function encodeFrame(f: Frame): Uint8Array {
  const out: number[] = [];
  for (const [field, value] of [[1, f.SeqID], [2, f.LogID], [3, f.service], [4, f.method]] as const) {
    varint(out, field << 3);
    varint(out, value);
  }
  for (const h of f.headers) {
    const inner: number[] = [];
    bytesField(inner, 1, enc.encode(h.key));
    bytesField(inner, 2, enc.encode(h.value));
    bytesField(out, 5, Uint8Array.from(inner));
  }
  if (f.payloadEncoding) bytesField(out, 6, enc.encode(f.payloadEncoding));
  if (f.payloadType) bytesField(out, 7, enc.encode(f.payloadType));
  if (f.payload) bytesField(out, 8, f.payload);
  if (f.LogIDNew) bytesField(out, 9, enc.encode(f.LogIDNew));
  return Uint8Array.from(out);
}

function fields(buf: Uint8Array): Array<{ field: number; value: number | Uint8Array }> {
  const out: Array<{ field: number; value: number | Uint8Array }> = [];
  let i = 0;
  const readVarint = () => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return Number(v);
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const tag = readVarint();
    const wire = tag & 7;
    if (wire === 0) out.push({ field: tag >> 3, value: readVarint() });
    else if (wire === 2) {
      const len = readVarint();
      out.push({ field: tag >> 3, value: buf.subarray(i, i + len) });
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

export function decodeFrame(buf: Uint8Array): Frame {
  const f: Frame = { SeqID: 0, LogID: 0, service: 0, method: 0, headers: [] };
  for (const { field, value } of fields(buf)) {
    if (field === 1) f.SeqID = value as number;
    else if (field === 2) f.LogID = value as number;
    else if (field === 3) f.service = value as number;
    else if (field === 4) f.method = value as number;
    else if (field === 5) {
      const h = { key: "", value: "" };
      for (const x of fields(value as Uint8Array)) {
        if (x.field === 1) h.key = dec.decode(x.value as Uint8Array);
        if (x.field === 2) h.value = dec.decode(x.value as Uint8Array);
      }
      f.headers.push(h);
    } else if (field === 6) f.payloadEncoding = dec.decode(value as Uint8Array);
    else if (field === 7) f.payloadType = dec.decode(value as Uint8Array);
    else if (field === 8) f.payload = value as Uint8Array;
    else if (field === 9) f.LogIDNew = dec.decode(value as Uint8Array);
  }
  return f;
}

export const header = (f: Frame, key: string) => f.headers.find((h) => h.key === key)?.value;
