// An editor driving `scv acp` (the compiled binary) through the official ACP SDK's client side: it records every
// `session/update`, answers `session/request_permission` with a test's chosen option, and serves `fs/*` when
// asked to offer them. Stopping it closes stdin and waits for the process to exit.
import { client, type ClientConnection, ndJsonStream } from "@agentclientprotocol/sdk";
import { requireBinary } from "./binary";

export interface Editor {
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  conn: ClientConnection;
  /** Every session/update's params, in order. */
  updates: { sessionId: string; update: any }[];
  /** Every permission request's params, in order. */
  permissions: any[];
  /** Every fs request, in order: method and params. */
  fsCalls: { method: string; params: any }[];
  request<T = any>(method: string, params?: unknown): Promise<T>;
  notify(method: string, params?: unknown): Promise<void>;
  /** Resolves once an update matching `match` arrived. */
  waitForUpdate(match: (u: any) => boolean, timeoutMs?: number): Promise<any>;
  stderr(): Promise<string>;
  stop(): Promise<number>;
}

export interface EditorOptions {
  env: Record<string, string>;
  cwd: string;
  /** The option the editor picks for each permission request (by optionId), or "cancelled". */
  answer?: (params: any) => string;
  /** Offer fs/read_text_file and fs/write_text_file, served by these (an editor's buffers). */
  fs?: { read(path: string): string; write(path: string, content: string): void };
}

export function startEditor(opts: EditorOptions): Editor {
  const proc = Bun.spawn([requireBinary(), "acp"], { cwd: opts.cwd, env: opts.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const updates: Editor["updates"] = [];
  const permissions: any[] = [];
  const fsCalls: Editor["fsCalls"] = [];
  const waiters: { match: (u: any) => boolean; resolve(u: any): void }[] = [];
  const stdin = new WritableStream<Uint8Array>({
    write: (chunk) => void proc.stdin.write(chunk),
    close: () => void proc.stdin.end(),
  });
  let app = client()
    .onNotification("session/update", ({ params }) => {
      updates.push(params as any);
      for (const w of waiters.splice(0)) {
        if (w.match(params.update)) w.resolve(params.update);
        else waiters.push(w);
      }
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      const choice = opts.answer?.(params) ?? "reject-once";
      return choice === "cancelled" ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId: choice } };
    });
  if (opts.fs) {
    const files = opts.fs;
    app = app
      .onRequest("fs/read_text_file", ({ params }) => {
        fsCalls.push({ method: "fs/read_text_file", params });
        return { content: files.read(params.path) };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        fsCalls.push({ method: "fs/write_text_file", params });
        files.write(params.path, params.content);
        return {};
      });
  }
  const conn = app.connect(ndJsonStream(stdin, proc.stdout as ReadableStream<Uint8Array>));
  return {
    proc,
    conn,
    updates,
    permissions,
    fsCalls,
    request: (method, params) => conn.agent.request(method as any, params as any) as Promise<any>,
    notify: (method, params) => conn.agent.notify(method as any, params as any),
    waitForUpdate(match, timeoutMs = 25_000) {
      const seen = updates.find((u) => match(u.update));
      if (seen) return Promise.resolve(seen.update);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching session/update within ${timeoutMs} ms; got ${JSON.stringify(updates.map((u) => u.update.sessionUpdate))}`)), timeoutMs);
        waiters.push({ match, resolve: (u) => (clearTimeout(timer), resolve(u)) });
      });
    },
    stderr: () => new Response(proc.stderr).text(),
    async stop() {
      conn.close();
      try {
        proc.stdin.end();
      } catch {
        // already closed
      }
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** The initialize every test sends first. */
export function initialize(editor: Editor, fs = false) {
  return editor.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false }, clientInfo: { name: "scv-test", version: "1" } });
}
