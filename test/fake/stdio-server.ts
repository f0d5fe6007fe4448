// The compiled `dist/scv server --stdio` as a child process, with a client that collects its JSON-RPC lines.
import { requireBinary } from "./binary";

export function startServer(env: Record<string, string>, cwd: string) {
  const proc = Bun.spawn([requireBinary(), "server", "--stdio"], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const messages: any[] = [];
  const waiters: { pred: (m: any) => boolean; resolve(m: any): void }[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        messages.push(msg);
        for (const w of [...waiters]) if (w.pred(msg)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(msg));
      }
    }
  })();
  const waitFor = (pred: (m: any) => boolean, ms = 10_000) => {
    const seen = messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<any>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; got ${JSON.stringify(messages).slice(0, 2000)}`)), ms);
      waiters.push({ pred, resolve: (m) => (clearTimeout(t), resolve(m)) });
    });
  };
  const send = (obj: unknown) => {
    proc.stdin.write(typeof obj === "string" ? obj : `${JSON.stringify(obj)}\n`);
    proc.stdin.flush();
  };
  let nextId = 1000;
  /** Sends a request and resolves with its reply (result or error). */
  const request = async (method: string, params: unknown) => {
    const id = nextId++;
    send({ jsonrpc: "2.0", id, method, params });
    return waitFor((m) => m.id === id);
  };
  return { proc, messages, waitFor, send, request };
}
