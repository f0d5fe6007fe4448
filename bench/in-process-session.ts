// A session of the in-process server for benches: SCV's own protocol handling against a stubbed model fetch,
// with turns run one at a time. `onNotification` sees every other notification (hook runs, compactions).
import { createModelClient } from "../src/provider/client";
import { createServerConnection } from "../src/server/server";

export interface BenchSession {
  /** Runs one turn to its end and returns its turn.ended params; a turn that does not complete throws. */
  turn(prompt: string): Promise<any>;
  close(): Promise<void>;
}

export async function openBenchSession(opts: { scvHome: string; workspace: string; fetch: typeof fetch; onNotification?: (method: string, params: any) => void }): Promise<BenchSession> {
  const waiters = new Map<string, (p: any) => void>();
  const pending = new Map<number, (v: any) => void>();
  let nextId = 1;
  let turns = 0;
  const conn = createServerConnection({
    env: { ...process.env, SCV_HOME: opts.scvHome },
    modelClientFactory: (profile) => createModelClient(profile, { version: "bench", fetch: opts.fetch }),
    async send(raw: any) {
      if (raw.method === "turn.ended") waiters.get(raw.params.turn_id)?.(raw.params);
      else if (raw.method) opts.onNotification?.(raw.method, raw.params);
      else if (pending.has(raw.id)) {
        pending.get(raw.id)!(raw.result ?? raw.error);
        pending.delete(raw.id);
      }
    },
  });
  const request = (method: string, params: object) =>
    new Promise<any>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      void conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  await request("initialize", { protocol_version: 3 });
  const { session_id } = await request("session.start", { cwd: opts.workspace });
  return {
    async turn(prompt) {
      const id = `t${++turns}`;
      const ended = new Promise<any>((resolve) => waiters.set(id, resolve));
      await request("turn.start", { session_id, prompt });
      const result = await ended;
      if (result.status !== "completed") throw new Error(`turn ${turns} ${result.status}: ${result.error?.message}`);
      return result;
    },
    close: () => conn.closeAll(),
  };
}
