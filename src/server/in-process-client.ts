// An in-process protocol client (`scv exec`, the TUI, the daemon's chat bridge): speaks JSON-RPC lines to a server connection in this process,
// so they exercise exactly the code path a stdio client does.
import type { NotificationArgs } from "../protocol/schema";
import { createServerConnection, type ServerOptions } from "./server";

type Message = { id?: number; method?: string; params?: unknown; result?: any; error?: { code: number; message: string; data?: unknown } };

export function createInProcessClient(opts: Omit<ServerOptions, "send"> & { onNotification(...notification: NotificationArgs): void }) {
  let nextId = 1;
  const pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  const connection = createServerConnection({
    ...opts,
    async send(raw) {
      const msg = raw as Message;
      // Written in this process by the server's typed notify, so it is the notification it names.
      if (msg.method) opts.onNotification(...([msg.method, msg.params] as NotificationArgs));
      else if (typeof msg.id === "number" && pending.has(msg.id)) {
        const p = pending.get(msg.id)!;
        pending.delete(msg.id);
        if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code, data: msg.error.data }));
        else p.resolve(msg.result);
      }
    },
  });
  return {
    request<T = any>(method: string, params: unknown): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        void connection.handleLine(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      });
    },
    closeAll: () => connection.closeAll(),
  };
}
