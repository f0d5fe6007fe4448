// JSON-RPC 2.0 for `scv acp`, as the agent: the editor's requests go to one handler and are answered (with the
// error codes ACP prescribes), its notifications to another, and SCV's own requests to the editor
// (`session/request_permission`, `fs/*`) wait for their answers. A malformed line is answered and skipped;
// the connection keeps serving.
import type { z } from "zod";
import { MAX_LINE_BYTES } from "../protocol/constants";
import { skippedRequestId } from "../protocol/request-id";

/** ACP's error codes (`ErrorCode` in the v1 schema). */
export const ACP_ERRORS = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal_error: -32603,
  resource_not_found: -32002,
} as const;

/** An error to answer a request with. */
export class AcpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Id = string | number;

export interface PeerHandlers {
  /** Answers a request; throw AcpError for an error reply. */
  request(method: string, params: unknown): Promise<unknown>;
  notification(method: string, params: unknown): void;
}

export class AcpPeer {
  private nextId = 0;
  private readonly pending = new Map<Id, { resolve(v: unknown): void; reject(e: Error): void }>();
  private closed = false;

  constructor(
    private readonly send: (message: unknown) => Promise<void>,
    private readonly handlers: PeerHandlers,
  ) {}

  async handleLine(text: string): Promise<void> {
    if (text.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      return this.fail(null, ACP_ERRORS.parse_error, `parse error: not valid JSON (${(e as Error).message}); send one JSON-RPC 2.0 object per line`);
    }
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
      return this.fail(null, ACP_ERRORS.invalid_request, "invalid request: expected one JSON-RPC 2.0 object per line (ACP uses no batches)");
    }
    const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { message?: unknown; code?: unknown; data?: unknown } };
    const id = typeof m.id === "string" || (typeof m.id === "number" && Number.isInteger(m.id)) ? (m.id as Id) : undefined;
    if (m.method === undefined && ("result" in m || "error" in m)) return this.settle(id, m);
    if (m.jsonrpc !== "2.0" || typeof m.method !== "string" || m.method === "" || (m.id !== undefined && id === undefined)) {
      return this.fail(id ?? null, ACP_ERRORS.invalid_request, 'invalid request: expected {"jsonrpc":"2.0","id":<integer or string>,"method":"…","params":{…}}');
    }
    if (id === undefined) {
      try {
        this.handlers.notification(m.method, m.params);
      } catch {
        // a notification gets no answer, even when it cannot be served
      }
      return;
    }
    try {
      const result = await this.handlers.request(m.method, m.params);
      await this.send({ jsonrpc: "2.0", id, result: result ?? null });
    } catch (e) {
      if (e instanceof AcpError) return this.fail(id, e.code, e.message, e.data);
      return this.fail(id, ACP_ERRORS.internal_error, `internal error in ${m.method}: ${(e as Error).message}`);
    }
  }

  /**
   * A line over the size limit, skipped unread: answered with the request's own id when its start or end shows
   * one, so the editor stops waiting. Without one, nothing can be answered: the result says the connection must
   * close (a request would otherwise wait forever).
   */
  async handleOversize(bytes: number, head = "", tail = ""): Promise<"answered" | "close"> {
    return this.answerSkipped(`line of ${bytes} bytes exceeds the ${MAX_LINE_BYTES}-byte limit and was skipped (send large content as a file path or in smaller parts)`, head, tail);
  }

  async handleRejected(bytes: number, reason: string, head = "", tail = ""): Promise<"answered" | "close"> {
    return this.answerSkipped(`invalid request: the ${bytes}-byte line is ${reason}; it was skipped without parsing`, head, tail);
  }

  private async answerSkipped(message: string, head: string, tail: string): Promise<"answered" | "close"> {
    const id = skippedRequestId(head, tail);
    await this.fail(id ?? null, ACP_ERRORS.invalid_request, id === undefined ? `${message}; its request id could not be read, so the connection closes` : message);
    return id === undefined ? "close" : "answered";
  }

  /** A request to the editor; its answer is checked against `result`. */
  async request<T extends z.ZodType>(method: string, params: unknown, result: T): Promise<z.infer<T>> {
    if (this.closed) throw new Error("the editor's connection is closed");
    const id = `scv-${this.nextId++}`;
    const reply = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    await this.send({ jsonrpc: "2.0", id, method, params });
    const parsed = result.safeParse(await reply);
    if (!parsed.success) throw new Error(`the editor's ${method} answer is not valid ACP: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
    return parsed.data;
  }

  notify(method: string, params: unknown): void {
    if (!this.closed) void this.send({ jsonrpc: "2.0", method, params });
  }

  /** The editor went away: every request waiting for it fails. */
  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new Error("the editor's connection closed"));
    this.pending.clear();
  }

  private settle(id: Id | undefined, m: { result?: unknown; error?: { message?: unknown; code?: unknown; data?: unknown } }): void {
    const waiter = id === undefined ? undefined : this.pending.get(id);
    if (!waiter || id === undefined) return;
    this.pending.delete(id);
    if (m.error) waiter.reject(Object.assign(new Error(String(m.error.message ?? "error")), { code: m.error.code, data: m.error.data }));
    else waiter.resolve(m.result);
  }

  private fail(id: Id | null, code: number, message: string, data?: unknown): Promise<void> {
    return this.send({ jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  }
}
