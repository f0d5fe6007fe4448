// Sessions over the compiled binary's stdio server for tests that run turns against the scripted model: open one
// (started with auto_approve, or resumed), run a turn to its end; every server opened is killed after each test.
import { afterEach, expect } from "bun:test";
import type { FakeModel } from "./model-server";
import { startStdioServer, type StdioServer } from "./stdio-client";

export interface OpenSession {
  s: StdioServer;
  sid: string;
  /** The session.start or session.resume result. */
  opened: any;
  /** Queues the model's replies, starts a turn and waits for it to complete. */
  turn(prompt: string, ...replies: Parameters<FakeModel["queue"]>): Promise<string>;
}

/** Registers the cleanup for the calling test file; returns `open`. */
export function stdioSessions(fake: FakeModel): (h: { env: Record<string, string>; workspace: string }, resume?: string) => Promise<OpenSession> {
  const servers: StdioServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.proc.kill("SIGKILL");
      await s.proc.exited;
    }
  });
  return async (h, resume) => {
    const s = startStdioServer(h.env, h.workspace);
    servers.push(s);
    await s.call("initialize", { protocol_version: 3 });
    const opened = resume ? await s.call("session.resume", { session_id: resume }) : await s.call("session.start", { cwd: h.workspace, auto_approve: true });
    const sid = opened.result.session_id as string;
    const turn = async (prompt: string, ...replies: Parameters<FakeModel["queue"]>) => {
      fake.queue(...replies);
      const { turn_id } = (await s.call("turn.start", { session_id: sid, prompt })).result;
      const ended = await s.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === turn_id, 30_000);
      expect(ended.params.status).toBe("completed");
      return turn_id as string;
    };
    return { s, sid, opened: opened.result, turn };
  };
}
