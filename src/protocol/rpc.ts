// JSON-RPC 2.0 dispatch for the client protocol: validates every request against schema.ts and answers every
// malformed line, unknown method or bad parameter with an error while the connection keeps serving.
import type { z } from "zod";
import {
  ERROR_CODES,
  JsonRpcRequest,
  MAX_LINE_BYTES,
  type NotificationMethod,
  type NotificationParams,
  type RequestMethod,
  type RequestParams,
  type RequestResult,
  requests,
} from "./schema";
import { certainlyValid } from "../fast-check/check";
import { prebuiltRequestSchemas } from "./request-schemas" with { type: "macro" };

/**
 * The JSON Schemas of the envelope and the params, made at build time: a request they certainly accept is taken
 * without zod (fast-check/check.ts), which a nested SCV child's first requests would otherwise spend milliseconds on.
 */
const FAST = prebuiltRequestSchemas();

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type RpcHandlers = { [M in RequestMethod]: (params: RequestParams<M>) => Promise<RequestResult<M>> };

/** A request id as echoed: an integer beyond 2^53 goes back as its exact source digits (JSON.rawJSON). */
type Id = string | number | null | RawId;
type RawId = { readonly rawJSON: string };
const rawJSON = (JSON as unknown as { rawJSON(text: string): RawId }).rawJSON;

/**
 * The id to echo. JSON.parse rounds integers beyond 2^53, so such an id is read again with the parser's
 * source text (only then: a reviver on every message would cost every message).
 */
function echoId(text: string, raw: unknown): Id {
  const id = (raw as { id?: unknown } | null)?.id;
  if (typeof id === "string") return id;
  if (typeof id !== "number" || !Number.isInteger(id)) return null; // not a valid id: answered as null
  if (Number.isSafeInteger(id)) return id;
  const sources = new Map<object, string>();
  let root: unknown;
  JSON.parse(text, function (this: object, key: string, value: unknown, ctx?: { source?: string }) {
    if (key === "id" && ctx?.source !== undefined) sources.set(this, ctx.source);
    if (key === "") root = value;
    return value;
  } as (key: string, value: unknown) => unknown);
  const source = root && typeof root === "object" ? sources.get(root) : undefined;
  return source !== undefined && /^-?\d+$/.test(source) ? rawJSON(source) : id;
}

export interface RpcEndpoint {
  handleLine(text: string): Promise<void>;
  handleOversize(bytes: number): Promise<void>;
  /** A line the reader refused unparsed (too deep, too many values): `reason` says which limit. */
  handleRejected(bytes: number, reason: string): Promise<void>;
  notify<M extends NotificationMethod>(method: M, params: NotificationParams<M>): Promise<void>;
}

/**
 * Requests are parsed without zod's compiled fast path: generating its code at a schema's first parse costs a
 * nested SCV child a couple of milliseconds before its first model request, more than a connection's few
 * requests a minute save with it. The checks and messages are the same.
 */
const JITLESS: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/** `root` names what an issue with an empty path is about: the whole message or its params. */
function describeIssues(error: z.ZodError, root = "params"): string {
  return error.issues.map((i) => `${i.path.join(".") || root}: ${i.message}`).join("; ");
}

export function createRpcEndpoint(opts: {
  handlers: RpcHandlers;
  send(message: unknown): Promise<void>;
  /** Until this is true, an unknown method is answered -32002 (initialize first) rather than -32601. */
  initialized?: () => boolean;
}): RpcEndpoint {
  const reply = (id: Id, result: unknown) => opts.send({ jsonrpc: "2.0", id, result });
  const fail = (id: Id, code: number, message: string, data?: unknown) =>
    opts.send({ jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } });

  return {
    async handleLine(text) {
      if (text.trim() === "") return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (e) {
        return fail(null, ERROR_CODES.parse_error, `parse error: not valid JSON (${(e as Error).message}); send one JSON-RPC 2.0 object per line`);
      }
      if (raw && typeof raw === "object" && !Array.isArray(raw) && !("method" in raw) && ("result" in raw || "error" in raw)) {
        return; // a response to something we never ask; nothing to do
      }
      const envelope = certainlyValid(FAST.envelope, raw) ? { success: true as const, data: raw as z.infer<typeof JsonRpcRequest> } : JsonRpcRequest.safeParse(raw, JITLESS);
      const id = echoId(text, raw);
      if (!envelope.success) {
        return fail(id, ERROR_CODES.invalid_request, `invalid request: ${describeIssues(envelope.error, "the message")}; expected {"jsonrpc":"2.0","id":…,"method":…,"params":{…}}`);
      }
      const { method, params } = envelope.data;
      const isNotification = envelope.data.id === undefined;
      const spec = (requests as Record<string, (typeof requests)[RequestMethod]>)[method];
      if (!spec || !Object.hasOwn(requests, method)) {
        if (isNotification) return;
        if (opts.initialized && !opts.initialized()) {
          return fail(id, ERROR_CODES.not_initialized, `method ${method} is not known, and the connection is not initialized: send initialize {protocol_version: 3} first`);
        }
        return fail(id, ERROR_CODES.method_not_found, `method not found: ${method}; known methods: ${Object.keys(requests).join(", ")}`);
      }
      const fast = FAST.params[method as RequestMethod];
      const parsed = certainlyValid(fast, params ?? {}) ? { success: true as const, data: params ?? {} } : spec.params.safeParse(params ?? {}, JITLESS);
      if (!parsed.success) {
        if (isNotification) return;
        return fail(id, ERROR_CODES.invalid_params, `invalid params for ${method}: ${describeIssues(parsed.error)}`);
      }
      try {
        const handler = opts.handlers[method as RequestMethod] as (p: unknown) => Promise<unknown>;
        const result = await handler(parsed.data);
        if (!isNotification) await reply(id, result);
      } catch (e) {
        if (isNotification) return;
        if (e instanceof RpcError) return fail(id, e.code, e.message, e.data);
        return fail(id, ERROR_CODES.internal_error, `internal error in ${method}: ${(e as Error).message}`);
      }
    },
    handleOversize(bytes) {
      return fail(null, ERROR_CODES.invalid_request, `line of ${bytes} bytes exceeds the ${MAX_LINE_BYTES}-byte limit and was skipped`);
    },
    handleRejected(bytes, reason) {
      return fail(null, ERROR_CODES.invalid_request, `invalid request: the ${bytes}-byte line is ${reason}, more than a protocol message needs; it was skipped without parsing`);
    },
    notify(method, params) {
      return opts.send({ jsonrpc: "2.0", method, params });
    },
  };
}
