// The web page as a daemon service: built from [web_ui] at `scv daemon run`, bound before the daemon's socket
// answers (an address in use fails the start, naming it, before any channel starts), and serving the routes
// `scv web` uses on the private socket: a sign-in link, and --revoke.
import type { Hono } from "hono";
import type { Config } from "../config/schema";
import { isLoopbackHost, parseListen } from "../config/web-ui";
import type { ChannelHost } from "../channels/core/host";
import type { LiveHub } from "../channels/core/live";
import { WebAuth } from "./auth";
import type { ScheduleControl } from "./context";
import { BODY_CAP } from "./request";
import { allowedHosts, createWebApp } from "./server";

export interface WebService {
  /** Listens on [web_ui] listen; throws an Error naming the address when it cannot. */
  bind(): void;
  /** The private socket's routes for `scv web`. */
  extend(app: Hono): void;
  stop(): void;
  /** The address it serves on, once bound. */
  url(): string | undefined;
}

export interface WebServiceOptions {
  scvHome: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  log(line: string): void;
  live: LiveHub;
  channels(): ChannelHost | undefined;
  schedules?: ScheduleControl;
}

export function createWebService(opts: WebServiceOptions): WebService {
  const auth = new WebAuth();
  const { host, port } = parseListen(opts.config.web_ui.listen);
  let server: ReturnType<typeof Bun.serve> | undefined;
  let base: string | undefined;
  return {
    bind() {
      const bare = host.replace(/^\[|\]$/g, "");
      try {
        // The real port is known only after binding (port 0 in tests): the Host check is made for it.
        let hostOk: (h: string | undefined) => boolean = () => false;
        const app = createWebApp({ ...opts, auth }, (h) => hostOk(h));
        // The client's address keys the sign-in failures; Bun's own body limit is a backstop behind the app's cap.
        server = Bun.serve({ hostname: bare, port, fetch: (req, srv) => app.fetch(req, { client: srv.requestIP(req)?.address ?? "unknown" }), idleTimeout: 60, maxRequestBodySize: 2 * BODY_CAP });
        hostOk = allowedHosts(host, server.port!, opts.config.web_ui.allowed_hosts);
        base = `http://${host}:${server.port}`;
      } catch (e) {
        const code = (e as { code?: string }).code;
        const why = code === "EADDRINUSE" ? "the address is already in use (another program, or another SCV daemon, listens there)" : (e as Error).message;
        throw new Error(`cannot serve the web page on ${opts.config.web_ui.listen} ([web_ui] listen): ${why}; choose another port in [web_ui] listen or set [web_ui] enabled = false`);
      }
      opts.log(`web page on ${base}${isLoopbackHost(host) ? "" : " (warning: reachable from other machines, over plain HTTP; see scv doctor)"}`);
    },
    extend(app) {
      app.post("/web/link", (c) => {
        if (!base) return c.json({ error: "the web page is not being served" }, 503);
        const { token, expiresInSeconds } = auth.mint();
        return c.json({ url: `${base}/signin?t=${token}`, expires_in_seconds: expiresInSeconds });
      });
      app.post("/web/revoke", (c) => {
        const ended = auth.revoke();
        opts.log(`web: every web session was ended (${ended})`);
        return c.json({ ended });
      });
    },
    stop() {
      server?.stop(true);
      server = undefined;
    },
    url: () => base,
  };
}
