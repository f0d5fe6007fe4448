// Reading a request's body: a JSON object of at most 1 MiB, or the reason it is not (for a 400).

export async function jsonBody(req: Request): Promise<Record<string, unknown> | string> {
  const text = await req.text();
  if (text.length > 1024 * 1024) return "the request is larger than 1 MiB";
  try {
    const v = JSON.parse(text || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : "the body must be a JSON object";
  } catch {
    return "the body must be JSON";
  }
}
