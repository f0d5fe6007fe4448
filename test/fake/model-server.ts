// A scripted fake model endpoint on 127.0.0.1 speaking three wire APIs over real HTTP: POST /v1/responses and
// POST /v1/chat/completions (OpenAI) and POST /v1/messages (Anthropic, anthropic-render.ts and anthropic-checks.ts,
// with a prompt cache priced like the API's). Each request takes the next queued reply, rendered in the
// format of the path it came to. Requests are recorded and checked for the invariants the real API enforces.
//
// In a test:   const fake = await startFakeModel(); fake.queue(text("hi")); ... fake.close();
// Standalone:  bun test/fake/model-server.ts --script replies.json [--port N] [--log requests.jsonl]
//              prints the base URL (ending in /v1) as its first stdout line (a kind = "anthropic" profile's
//              base_url is the same without /v1); SIGTERM/SIGINT stop it.
import { appendFileSync, readFileSync } from "node:fs";
import { FakeReply, FakeScript } from "./model-replies";
import { renderChat, renderJson, renderResponses, type Rendered } from "./model-render";
import { anthropicErrorBody, renderAnthropic, renderAnthropicJson, type CacheCounts } from "./anthropic-render";
import { anthropicRequestProblem, FakePromptCache } from "./anthropic-checks";

export * from "./model-replies";

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (undefined if it was not JSON). */
  body: any;
  /** /v1/messages: how the fake's prompt cache priced the request's input. */
  cache?: CacheCounts;
}

export interface FakeModel {
  /** The base_url to configure: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** The base_url of a kind = "anthropic" profile: `http://127.0.0.1:<port>` (the API's paths start with /v1). */
  anthropicUrl: string;
  queue(...replies: FakeReply[]): void;
  /** Every request received, in order, including rejected ones. */
  requests: RecordedRequest[];
  /** Replies still queued. */
  pending(): number;
  /** Drops every queued reply (recorded requests stay). */
  clear(): void;
  /** Reasoning items sent so far (Responses), in order; requests must replay them verbatim. */
  reasoningIssued: { id: string; encrypted_content: string }[];
  close(): Promise<void>;
}

export interface FakeModelOptions {
  /** Model IDs GET /v1/models lists (OpenAI's list shape); without them it answers 404 as before. */
  models?: string[];
  replies?: FakeReply[];
  port?: number;
  /** Pause between SSE frames (default 0). */
  frameDelayMs?: number;
  onRequest?: (r: RecordedRequest) => void;
  /** Answer 400 context_length_exceeded to a request whose body is over this many tokens (4 bytes a token). */
  contextWindowTokens?: number;
  /** Top-level request fields this endpoint does not know: a request carrying one gets HTTP 400 naming it. */
  rejectFields?: string[];
  /** /v1/messages: the only x-api-key accepted (any when unset); another gets 401 authentication_error. */
  anthropicKey?: string;
  /** Computes a reply from the request; undefined takes the next queued reply. */
  respond?: (body: any, request: RecordedRequest) => FakeReply | undefined;
}

/** The 400 a server gives when the request is larger than its context window (reference §3). */
export function contextOverflowResponse(tokens: number, window: number) {
  return errorResponse(400, `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`, {
    param: "input",
    code: "context_length_exceeded",
  });
}

/**
 * Reasoning items replayed in a request must be ones this endpoint sent, with their encrypted content intact,
 * in the order they were sent (a stateless API cannot decrypt anything else).
 */
export function reasoningProblem(input: any[], issued: { id: string; encrypted_content: string }[]): string | undefined {
  let lastIndex = -1;
  for (const item of input) {
    if (item?.type !== "reasoning") continue;
    const at = issued.findIndex((r) => r.id === item.id);
    if (at < 0) return `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false.`;
    if (item.encrypted_content !== issued[at]!.encrypted_content) return `The encrypted content for item ${item.id} could not be verified.`;
    if (at <= lastIndex) return `Reasoning item ${item.id} is out of order.`;
    lastIndex = at;
  }
  return undefined;
}

const encoder = new TextEncoder();

function errorResponse(status: number, message: string, extra: { type?: string; code?: string | null; param?: string | null; headers?: Record<string, string> } = {}) {
  const body = { error: { message, type: extra.type ?? "invalid_request_error", param: extra.param ?? null, code: extra.code ?? null } };
  return Response.json(body, { status, headers: extra.headers });
}

/** The checks the real APIs make on replayed tool calls; a message when the request breaks one. */
export function requestProblem(path: string, body: any): string | undefined {
  if (!body || typeof body !== "object") return "The request body must be a JSON object.";
  if (typeof body.model !== "string" || !body.model) return "Missing required parameter: 'model'.";
  if (body.stream !== true) return "The fake model only streams: send \"stream\": true.";
  if (path.endsWith("/responses")) {
    if (!Array.isArray(body.input)) return "Invalid type for 'input': expected an array of input items.";
    for (const [i, t] of (body.tools ?? []).entries()) {
      if (t?.type === "function" && typeof t.name !== "string") return `Missing required parameter: 'tools[${i}].name'.`;
    }
    const calls = new Set<string>();
    const answered = new Set<string>();
    for (const item of body.input) {
      if (item?.type === "function_call") calls.add(item.call_id);
      if (item?.type === "function_call_output") {
        if (!calls.has(item.call_id)) return `No tool call found for function call output with call_id ${item.call_id}.`;
        answered.add(item.call_id);
      }
    }
    for (const c of calls) if (!answered.has(c)) return `No tool output found for function call ${c}.`;
    return undefined;
  }
  if (!Array.isArray(body.messages)) return "Invalid type for 'messages': expected an array of messages.";
  for (const [i, t] of (body.tools ?? []).entries()) {
    if (t?.type !== "function" || typeof t.function?.name !== "string") return `Missing required parameter: 'tools[${i}].function'.`;
  }
  // Tool messages must directly follow the assistant message whose tool_calls they answer, covering each id.
  const msgs: any[] = body.messages;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m?.role === "tool") return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    if (m?.role !== "assistant" || !Array.isArray(m.tool_calls)) continue;
    const open = new Set<string>(m.tool_calls.map((c: any) => c.id));
    while (msgs[i + 1]?.role === "tool") {
      const answer = msgs[++i];
      if (!open.delete(answer.tool_call_id)) return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    }
    if (open.size) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`;
  }
  return undefined;
}

export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  const replies: FakeReply[] = (opts.replies ?? []).map((r) => FakeReply.parse(r));
  const requests: RecordedRequest[] = [];
  const reasoningIssued: { id: string; encrypted_content: string }[] = [];
  const stalls = new Set<() => void>(); // hanging responses to release on close()
  const promptCache = new FakePromptCache();

  const stall = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => (stalls.delete(done), resolve());
      stalls.add(done);
      signal.addEventListener("abort", done, { once: true });
    });

  const stream = (rendered: Rendered, signal: AbortSignal) => {
    let next = 0;
    const gone = new AbortController(); // the client cancelled the body
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (next < rendered.frames.length) {
          if (opts.frameDelayMs) await Bun.sleep(opts.frameDelayMs);
          // Two writes per frame, split mid-way (even mid-character), to exercise byte-level SSE parsing.
          const bytes = encoder.encode(rendered.frames[next++]!);
          const half = Math.max(1, bytes.length >> 1);
          controller.enqueue(bytes.subarray(0, half));
          controller.enqueue(bytes.subarray(half));
          return;
        }
        if (rendered.end === "hang") await stall(AbortSignal.any([signal, gone.signal]));
        controller.close();
      },
      cancel() {
        gone.abort();
      },
    });
  };

  /** POST /v1/messages, the Anthropic Messages API: its checks, errors in its shape, the prompt cache's pricing. */
  const messages = async (record: RecordedRequest, raw: string, n: number, signal: AbortSignal): Promise<Response> => {
    const { body, headers } = record;
    const common = { "request-id": `req_fake_${n}` };
    const fail = (status: number, type: string, message: string, extra: Record<string, string> = {}) => Response.json(anthropicErrorBody(type, message), { status, headers: { ...common, ...extra } });
    if (opts.anthropicKey && headers["x-api-key"] !== opts.anthropicKey) return fail(401, "authentication_error", "invalid x-api-key");
    if (body === undefined) return fail(400, "invalid_request_error", "There was an error parsing the body of your request.");
    const problem = anthropicRequestProblem(body, headers);
    if (problem) return fail(400, "invalid_request_error", problem);
    const tokens = Math.ceil(raw.length / 4);
    if (opts.contextWindowTokens && tokens > opts.contextWindowTokens) return fail(400, "invalid_request_error", `prompt is too long: ${tokens} tokens > ${opts.contextWindowTokens} maximum`);
    const reply = opts.respond?.(body, record) ?? replies.shift();
    if (!reply) return fail(500, "api_error", `fake model: the script ran out of replies (request #${n} to /v1/messages); queue another reply`, { "x-should-retry": "false" });
    if (reply.kind === "http_error") {
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
      return new Response(text, { status: reply.status, headers: { "content-type": typeof reply.body === "string" ? "text/plain; charset=utf-8" : "application/json", ...common, ...reply.headers } });
    }
    if (reply.kind === "hang" && !reply.text) {
      await stall(signal);
      return new Response(null, { status: 499 });
    }
    record.cache = promptCache.price(body);
    if (reply.kind === "json") return Response.json(renderAnthropicJson(reply, body, record.cache), { headers: common });
    const rendered = reply.kind === "raw" ? { frames: reply.frames, end: "close" as const, reasoning: [] } : renderAnthropic(reply, body, record.cache);
    return new Response(stream(rendered, signal), { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...common } });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    idleTimeout: 0, // a hang must last until the client gives up, not Bun's 10 s default
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      const raw = await req.text();
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const record: RecordedRequest = { method: req.method, path, headers, body };
      requests.push(record);
      opts.onRequest?.(record);
      const n = requests.length;
      if (req.method === "GET" && path === "/v1/models" && opts.models && headers["anthropic-version"]) {
        if (opts.anthropicKey && headers["x-api-key"] !== opts.anthropicKey) return Response.json(anthropicErrorBody("authentication_error", "invalid x-api-key"), { status: 401 });
        const data = opts.models.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-09-29T00:00:00Z" }));
        return Response.json({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
      }
      if (req.method === "GET" && path === "/v1/models" && opts.models) {
        return Response.json({ object: "list", data: opts.models.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" })) });
      }
      const isResponses = path === "/v1/responses";
      if (req.method === "POST" && path === "/v1/messages") return messages(record, raw, n, req.signal);
      if (req.method !== "POST" || (!isResponses && path !== "/v1/chat/completions")) {
        return errorResponse(404, `Invalid URL (${req.method} ${path})`);
      }
      if (body === undefined) return errorResponse(400, "We could not parse the JSON body of your request.");
      for (const field of opts.rejectFields ?? []) {
        if (field in body) return errorResponse(400, `Unrecognized request argument supplied: ${field}`, { param: field, code: "unknown_parameter" });
      }
      const problem = requestProblem(path, body) ?? (isResponses ? reasoningProblem(body.input, reasoningIssued) : undefined);
      if (problem) return errorResponse(400, problem, { param: isResponses ? "input" : "messages" });
      const tokens = Math.ceil(raw.length / 4);
      if (opts.contextWindowTokens && tokens > opts.contextWindowTokens) return contextOverflowResponse(tokens, opts.contextWindowTokens);
      const reply = opts.respond?.(body, record) ?? replies.shift();
      if (!reply) {
        return errorResponse(500, `fake model: the script ran out of replies (request #${n} to ${path}); queue another reply`, {
          type: "server_error",
          headers: { "x-should-retry": "false" }, // retrying cannot help
        });
      }
      const common = { "x-request-id": `req_fake_${n}` };
      if (reply.kind === "http_error") {
        const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
        const type = typeof reply.body === "string" ? "text/plain; charset=utf-8" : "application/json";
        return new Response(text, { status: reply.status, headers: { "content-type": type, ...common, ...reply.headers } });
      }
      if (reply.kind === "hang" && !reply.text) {
        await stall(req.signal);
        return new Response(null, { status: 499 });
      }
      if (reply.kind === "json") return Response.json(renderJson(reply, body, isResponses), { headers: common });
      const rendered = reply.kind === "raw" ? { frames: reply.frames, end: "close" as const, reasoning: [] } : isResponses ? renderResponses(reply, body) : renderChat(reply, body);
      reasoningIssued.push(...rendered.reasoning);
      return new Response(stream(rendered, req.signal), {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...common },
      });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    anthropicUrl: `http://127.0.0.1:${server.port}`,
    queue: (...more) => {
      for (const r of more) replies.push(FakeReply.parse(r));
    },
    requests,
    pending: () => replies.length,
    reasoningIssued,
    clear: () => void replies.splice(0),
    async close() {
      for (const release of [...stalls]) release();
      await server.stop(true);
    },
  };
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: string[]) {
  const scriptPath = argValue(args, "--script");
  if (!scriptPath) {
    console.error("usage: bun test/fake/model-server.ts --script <replies.json> [--port N] [--log <requests.jsonl>]");
    process.exit(2);
  }
  let replies: FakeReply[];
  try {
    const parsed = FakeScript.safeParse(JSON.parse(readFileSync(scriptPath, "utf8")));
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "));
    replies = Array.isArray(parsed.data) ? parsed.data : parsed.data.replies;
  } catch (e) {
    console.error(`fake model: cannot use script ${scriptPath}: ${e instanceof Error ? e.message : e}`);
    process.exit(2);
  }
  const log = argValue(args, "--log");
  const fake = await startFakeModel({
    replies,
    port: argValue(args, "--port") ? Number(argValue(args, "--port")) : 0,
    onRequest: log
      ? (r) => {
          const headers = { ...r.headers, ...(r.headers.authorization ? { authorization: "Bearer (redacted)" } : {}), ...(r.headers["x-api-key"] ? { "x-api-key": "(redacted)" } : {}) };
          appendFileSync(log, `${JSON.stringify({ ...r, headers })}\n`);
        }
      : undefined,
  });
  process.stdout.write(`${fake.url}\n`);
  const stop = async () => {
    await fake.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (import.meta.main) await main(process.argv.slice(2));
