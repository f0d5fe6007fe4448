// JSON-RPC 2.0 over a child's stdio, one JSON object per line: SCV's requests with their pending replies, the
// agent's notifications, and the agent's requests, which a handler answers (or "method not found"). Lines are
// read by the same bounded reader the CLI formats use, so an oversized line is skipped, not buffered.
// Written here rather than taken from @agentclientprotocol/sdk: see docs/architecture.md ("Why not …").
import type { z } from "zod";
import { StreamReader } from "../formats/stream";
import { METHOD_NOT_FOUND, RpcMessage } from "../../protocol/acp";

/** A JSON-RPC error the agent returned, or the connection closing under a pending request. */
export class RpcError extends Error {
  constructor(
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** An agent request SCV does not serve: answered with JSON-RPC "method not found". */
export class MethodNotFound extends Error {}

export interface ConnectionHandlers {
  notification(method: string, params: unknown): void;
  /** Answers an agent request; throw MethodNotFound for anything SCV does not offer. */
  request(method: string, params: unknown): Promise<unknown>;
}

export class RpcConnection {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private closedWith: Error | undefined;
  private readonly reader: StreamReader;

  constructor(
    private readonly write: (line: string) => Promise<void>,
    private readonly handlers: ConnectionHandlers,
  ) {
    this.reader = new StreamReader({ event: (v) => this.dispatch(v), finish: () => ({ failed: false, declined: false }) });
  }

  /** Feeds bytes from the child's stdout. */
  push(chunk: Uint8Array): void {
    this.reader.push(chunk);
  }

  async request<T extends z.ZodType>(method: string, params: unknown, result: T): Promise<z.infer<T>> {
    if (this.closedWith) throw this.closedWith;
    const id = this.nextId++;
    const reply = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.send({ jsonrpc: "2.0", id, method, params });
    const value = await reply;
    const parsed = result.safeParse(value);
    if (!parsed.success) throw new RpcError(`the agent's ${method} reply is not valid ACP: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
    return parsed.data;
  }

  notify(method: string, params: unknown): void {
    if (!this.closedWith) this.send({ jsonrpc: "2.0", method, params });
  }

  /** Fails every pending request (the child exited or is being shut down). */
  close(reason: Error): void {
    this.closedWith ??= reason;
    for (const p of this.pending.values()) p.reject(this.closedWith);
    this.pending.clear();
  }

  private send(message: Record<string, unknown>): void {
    // A write to a child that is gone fails; its exit closes the connection, which settles pending requests.
    this.write(`${JSON.stringify(message)}\n`).catch(() => {});
  }

  private dispatch(value: Record<string, unknown>): void {
    const parsed = RpcMessage.safeParse(value);
    if (!parsed.success) return;
    const m = parsed.data;
    if (m.method !== undefined) {
      if (m.id === undefined || m.id === null) return this.handlers.notification(m.method, m.params);
      const id = m.id;
      this.handlers.request(m.method, m.params).then(
        (result) => this.send({ jsonrpc: "2.0", id, result: result ?? {} }),
        (e) =>
          this.send({
            jsonrpc: "2.0",
            id,
            error: e instanceof MethodNotFound ? { code: METHOD_NOT_FOUND, message: "Method not found" } : { code: -32603, message: "Internal error" },
          }),
      );
      return;
    }
    if (typeof m.id !== "number") return;
    const waiter = this.pending.get(m.id);
    if (!waiter) return;
    this.pending.delete(m.id);
    if (m.error) waiter.reject(new RpcError(m.error.message, m.error.code, m.error.data));
    else waiter.resolve(m.result);
  }
}
