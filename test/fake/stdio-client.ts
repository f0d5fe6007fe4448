// A protocol client for the compiled `dist/scv server --stdio` over its real stdin/stdout.
import { requireBinary } from "./binary";
import { notificationProblem } from "./protocol-check";

export interface StdioServer {
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  messages: any[];
  /** The same messages as the exact lines received (JSON.parse rounds ids beyond 2^53). */
  lines: string[];
  /** The first message (past or future) matching `pred`. */
  waitFor(pred: (m: any) => boolean, ms?: number): Promise<any>;
  /** A JSON object (one line) or a raw string as given. */
  send(obj: unknown): void;
  /** Sends a request and waits for its response. */
  request(id: number | string, method: string, params?: unknown, ms?: number): Promise<any>;
  /** A request with the next free numeric id (from 1000), for tests that do not care which id it has. */
  call(method: string, params?: unknown, ms?: number): Promise<any>;
  /** SIGKILL (if still running) and wait for the exit. */
  kill(): Promise<void>;
}

export function startStdioServer(env: Record<string, string>, cwd: string): StdioServer {
  const proc = Bun.spawn([requireBinary(), "server", "--stdio"], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const messages: any[] = [];
  const lines: string[] = [];
  const waiters: { pred: (m: any) => boolean; resolve(m: any): void; reject(e: Error): void }[] = [];
  // A notification that does not match the protocol schema fails every wait from then on.
  let schemaProblem: Error | undefined;
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        lines.push(buf.slice(0, nl));
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        messages.push(msg);
        const problem = msg.method && msg.id === undefined ? notificationProblem(msg.method, msg.params) : undefined;
        if (problem && !schemaProblem) {
          schemaProblem = new Error(`a notification that does not match src/protocol/schema.ts: ${problem}`);
          for (const w of waiters.splice(0)) w.reject(schemaProblem);
        }
        for (const w of [...waiters]) if (w.pred(msg)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(msg));
      }
    }
  })();
  const waitFor = (pred: (m: any) => boolean, ms = 25_000) => {
    if (schemaProblem) return Promise.reject(schemaProblem);
    const seen = messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<any>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; got ${JSON.stringify(messages).slice(0, 2000)}`)), ms);
      waiters.push({ pred, resolve: (m) => (clearTimeout(t), resolve(m)), reject: (e) => (clearTimeout(t), reject(e)) });
    });
  };
  const send = (obj: unknown) => {
    proc.stdin.write(typeof obj === "string" ? obj : `${JSON.stringify(obj)}\n`);
    proc.stdin.flush();
  };
  const request = (id: number | string, method: string, params?: unknown, ms?: number) => {
    send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return waitFor((m) => m.id === id && !m.method, ms);
  };
  let nextId = 1000;
  return {
    proc,
    messages,
    lines,
    waitFor,
    send,
    request,
    call: (method, params, ms) => request(nextId++, method, params, ms),
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
