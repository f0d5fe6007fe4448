// The client side of protocol v3, as the calling SCV speaks it to a nested `scv server --stdio`. Every request
// and every answer is checked against src/protocol/schema.ts, the one definition of the wire format, so a
// nested SCV that drifts from it fails loudly instead of being misread.
import {
  type NotificationMethod,
  type NotificationParams,
  notifications,
  type RequestMethod,
  type RequestParams,
  type RequestResult,
  requests,
} from "../../protocol/schema";

/** One notification from the nested server, validated; unknown or malformed ones never get here. */
export type NestedNotification = { [M in NotificationMethod]: { method: M; params: NotificationParams<M> } }[NotificationMethod];

/** The nested server answered a request with a JSON-RPC error. */
export class NestedRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method} failed: ${message}`);
    this.name = "NestedRpcError";
  }
}

interface Pending {
  method: RequestMethod;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class NestedClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure?: Error;

  constructor(
    private readonly write: (line: string) => Promise<void>,
    private readonly onNotification: (n: NestedNotification) => void,
  ) {}

  request<M extends RequestMethod>(method: M, params: RequestParams<M>): Promise<RequestResult<M>> {
    if (this.failure) return Promise.reject(this.failure);
    const checked = requests[method].params.parse(params);
    const id = this.nextId++;
    return new Promise<RequestResult<M>>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject });
      this.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: checked })}\n`).catch((e: Error) => {
        this.pending.delete(id);
        reject(new Error(`could not send ${method}: ${e.message}`));
      });
    });
  }

  /** One JSON object the nested server wrote (a response or a notification). */
  message(value: Record<string, unknown>): void {
    if (typeof value.method === "string") {
      const spec = (notifications as Record<string, (typeof notifications)[NotificationMethod]>)[value.method];
      if (!spec || !Object.hasOwn(notifications, value.method)) return;
      const parsed = spec.params.safeParse(value.params);
      if (parsed.success) this.onNotification({ method: value.method, params: parsed.data } as NestedNotification);
      return;
    }
    if (typeof value.id !== "number") return;
    const waiting = this.pending.get(value.id);
    if (!waiting) return;
    this.pending.delete(value.id);
    const error = value.error as { code?: unknown; message?: unknown } | undefined;
    if (error && typeof error === "object") {
      waiting.reject(new NestedRpcError(waiting.method, Number(error.code) || 0, String(error.message ?? "unknown error")));
      return;
    }
    const parsed = requests[waiting.method].result.safeParse(value.result);
    if (parsed.success) waiting.resolve(parsed.data);
    else waiting.reject(new Error(`the nested SCV answered ${waiting.method} with an unexpected result: ${parsed.error.issues[0]?.message}`));
  }

  /** The server is gone: every open request fails with `error`, and so does every later one. */
  fail(error: Error): void {
    this.failure ??= error;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
