// A protocol client around an in-process server connection, pointed at the fake model endpoint through a
// temporary SCV_HOME. Shared by server, tool-integration and background-job tests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServerConnection } from "../../src/server/server";
import { openSessionStore, type SessionStore } from "../../src/sessions/index";
import type { SessionServices } from "../../src/scope";
import { type FakeModel, startFakeModel } from "./model-server";
import { notificationProblem } from "./protocol-check";

export interface Harness {
  fake: FakeModel;
  home: string;
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The session store under `home` the server keeps its sessions in. */
  sessions: SessionStore;
  /** Every notification, in order. */
  events: { method: string; params: any }[];
  request<T = any>(method: string, params?: unknown): Promise<T>;
  /** Resolves with the first notification (past or future) matching. */
  waitFor(method: string, match?: (params: any) => boolean, timeoutMs?: number): Promise<any>;
  /** initialize + session.start; returns the session id. */
  start(params?: Record<string, unknown>): Promise<string>;
  /** turn.start and wait for its turn.ended (25 s unless `timeoutMs` says otherwise). */
  turn(sessionId: string, prompt: string, timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
  /** Removes the temporary SCV_HOME and workspace (after close). */
  remove(): void;
}

export interface HarnessOptions {
  /** Appended to the user config.toml (after the fake provider profile). */
  config?: string;
  wireApi?: "responses" | "chat";
  env?: Record<string, string>;
  fake?: FakeModel;
  /** Per-session services, e.g. `net` overrides for a test resolver and CA. */
  services?: () => SessionServices;
  /** An existing SCV_HOME (with its config.toml) to reuse, as a restarted server would. */
  home?: string;
  /** The fake profile's max_retries (default 0). */
  maxRetries?: number;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const fake = opts.fake ?? (await startFakeModel());
  const root = opts.home ? join(opts.home, "..") : mkdtempSync(join(tmpdir(), "scv-harness-"));
  const home = join(root, "scv-home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  if (!opts.home) {
    writeFileSync(
      join(home, "config.toml"),
      `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nwire_api = "${opts.wireApi ?? "responses"}"\nmodel = "fake-model"\nmax_retries = ${opts.maxRetries ?? 0}\n${opts.config ?? ""}`,
    );
  }
  const sessions = openSessionStore({ home });
  const env: NodeJS.ProcessEnv = { ...process.env, SCV_HOME: home, ...opts.env };
  const events: { method: string; params: any }[] = [];
  // Every notification a test sees must match the protocol schema the docs come from; close() fails otherwise.
  const schemaProblems: string[] = [];
  // Never loses the event it checks: a check that itself fails is recorded as a problem too.
  const checkSchema = (method: string, params: unknown) => {
    try {
      const problem = notificationProblem(method, params);
      if (problem) schemaProblems.push(problem);
    } catch (e) {
      schemaProblems.push(`${method}: the schema check failed: ${(e as Error).message}`);
    }
  };
  const waiters: { method: string; match: (p: any) => boolean; resolve(p: any): void }[] = [];
  const pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  let nextId = 1;
  const conn = createServerConnection({
    env,
    sessions,
    services: opts.services,
    async send(raw: any) {
      if (raw.method) {
        events.push({ method: raw.method, params: raw.params });
        checkSchema(raw.method, raw.params);
        for (const w of [...waiters]) {
          if (w.method === raw.method && w.match(raw.params)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(raw.params);
          }
        }
      } else if (pending.has(raw.id)) {
        const p = pending.get(raw.id)!;
        pending.delete(raw.id);
        if (raw.error) p.reject(Object.assign(new Error(raw.error.message), { code: raw.error.code }));
        else p.resolve(raw.result);
      }
    },
  });
  const h: Harness = {
    fake,
    home,
    workspace,
    env,
    sessions,
    events,
    request(method, params = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        void conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      });
    },
    waitFor(method, match = () => true, timeoutMs = 25_000) {
      const seen = events.find((e) => e.method === method && match(e.params));
      if (seen) return Promise.resolve(seen.params);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`timed out waiting for ${method}`)), timeoutMs);
        waiters.push({ method, match, resolve: (p) => (clearTimeout(t), resolve(p)) });
      });
    },
    async start(params = {}) {
      await h.request("initialize", { protocol_version: 3 });
      const r = await h.request("session.start", { cwd: workspace, ...params });
      return r.session_id;
    },
    async turn(sessionId, prompt, timeoutMs) {
      const { turn_id } = await h.request("turn.start", { session_id: sessionId, prompt });
      return h.waitFor("turn.ended", (p) => p.session_id === sessionId && p.turn_id === turn_id, timeoutMs);
    },
    async close() {
      await conn.closeAll();
      if (!opts.fake) await fake.close();
      rmSync(root, { recursive: true, force: true });
      if (schemaProblems.length) throw new Error(`notifications that do not match src/protocol/schema.ts:\n${schemaProblems.join("\n")}`);
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  return h;
}
