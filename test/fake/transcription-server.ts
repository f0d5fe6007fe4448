// A fake OpenAI-compatible speech-to-text endpoint on 127.0.0.1: `POST /v1/audio/transcriptions` with a multipart
// body (file, model, response_format, language?) answering `{"text": "…"}` as OpenAI's API does
// (https://platform.openai.com/docs/api-reference/audio/createTranscription), or an error body
// `{"error":{"message","type","code"}}` with its status; `hangMs` holds the answer back (a timeout).

export interface FakeTranscriber {
  url: string;
  key: string;
  /** Every request: the model, the file's name and size, the Authorization header. */
  requests: Array<{ model: string; file: string; size: number; auth: string; language?: string }>;
  /** The next answers: a text, or [status, error message]. */
  answers: Array<string | [number, string]>;
  hangMs: number;
  close(): Promise<void>;
}

export async function startFakeTranscriber(): Promise<FakeTranscriber> {
  const fake = { key: "sk-stt-fake-key-0123456789abcdef", requests: [], answers: [], hangMs: 0 } as unknown as FakeTranscriber;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/audio/transcriptions") return Response.json({ error: { message: "Not found", type: "invalid_request_error", code: null } }, { status: 404 });
      const form = await req.formData();
      const file = form.get("file") as File | null;
      const auth = req.headers.get("authorization") ?? "";
      fake.requests.push({ model: String(form.get("model") ?? ""), file: file?.name ?? "", size: file?.size ?? 0, auth, ...(form.get("language") ? { language: String(form.get("language")) } : {}) });
      if (fake.hangMs) await Bun.sleep(fake.hangMs);
      if (auth !== `Bearer ${fake.key}`) return Response.json({ error: { message: `Incorrect API key provided: ${auth.slice(7)}`, type: "invalid_request_error", code: "invalid_api_key" } }, { status: 401 });
      if (!file) return Response.json({ error: { message: "Missing file", type: "invalid_request_error", code: null } }, { status: 400 });
      const next = fake.answers.shift() ?? "";
      if (Array.isArray(next)) return Response.json({ error: { message: next[1], type: "server_error", code: null } }, { status: next[0] });
      return Response.json({ text: next });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}/v1`;
  fake.close = async () => void (await server.stop(true));
  return fake;
}
