// Reading a request's body: at most BODY_CAP bytes, counted while it streams (reading stops at the cap and the
// answer is 413, however the client frames the body), then a JSON object or the reason it is not (for a 400).

export const BODY_CAP = 1024 * 1024;

export type BodyRead = { ok: true; text: string } | { ok: false; status: 400 | 413; error: string };

/** The body as text, or 413 as soon as more than `cap` bytes are declared or have arrived. */
export async function readCapped(req: Request, cap = BODY_CAP): Promise<BodyRead> {
  const tooLarge: BodyRead = { ok: false, status: 413, error: `the request body is larger than ${cap / 1024 / 1024} MiB, the web page's limit` };
  const declared = Number(req.headers.get("content-length"));
  if (declared > cap) return tooLarge;
  const reader = req.body?.getReader();
  if (!reader) return { ok: true, text: "" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > cap) {
        await reader.cancel().catch(() => {}); // over the cap: refused below whatever the cancel does
        return tooLarge;
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, status: 400, error: "the request body could not be read (the client stopped sending)" };
  }
  return { ok: true, text: new TextDecoder().decode(Buffer.concat(chunks)) };
}

/** A JSON object from a body read by `readCapped`, or why it is not one. */
export function jsonBody(text: string | undefined): Record<string, unknown> | string {
  try {
    const v = JSON.parse(text || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : "the body must be a JSON object";
  } catch {
    return "the body must be JSON";
  }
}
