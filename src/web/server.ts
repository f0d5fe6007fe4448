// The web page's HTTP server: Hono on the [web_ui] listen address, in the daemon. Every request passes the same
// gate: the Host must be the listen address (or a configured name: no DNS rebinding), a page needs the session
// cookie (or a one-time sign-in link), a change needs the page's Origin and CSRF token, and every answer carries
// a strict Content-Security-Policy and no CORS header. Nothing is read from disk for a request but what the
// pages show: there is no static file route, so no $SCV_HOME file can be fetched.
import { Hono } from "hono";
import { isLoopbackHost } from "../config/web-ui";
import { APP_JS, STYLE_CSS } from "./assets";
import type { WebContext, WebEnv } from "./context";
import { html, page } from "./html";
import { registerChat } from "./pages/chat";
import { registerHealth } from "./pages/health";
import { registerMemory } from "./pages/memory";
import { registerSchedules } from "./pages/schedules";
import { registerSessions } from "./pages/sessions";
import { registerUsage } from "./pages/usage";

export const COOKIE = "scv_web";

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The Host values this server answers to: its address, `localhost` when that is loopback, and [web_ui] allowed_hosts. */
export function allowedHosts(listenHost: string, port: number, extra: readonly string[]): (host: string | undefined) => boolean {
  const exact = new Set([`${listenHost}:${port}`.toLowerCase()]);
  if (isLoopbackHost(listenHost)) for (const h of ["localhost", "127.0.0.1", "[::1]"]) exact.add(`${h}:${port}`);
  const names = new Set(extra.map((h) => h.toLowerCase()));
  return (host) => {
    if (!host) return false;
    const h = host.toLowerCase();
    if (exact.has(h)) return true;
    const name = h.replace(/:\d{1,5}$/, "");
    return names.has(name);
  };
}


function cookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === COOKIE) return v.join("=");
  }
  return undefined;
}

function signInPage(message: string): string {
  return page({ name: "signin", title: "Sign in", body: html`<h1>Sign in to SCV</h1><p>${message}</p><p class="mute">Run <code>scv web</code> in a terminal on this machine for a new sign-in link; each link works once.</p>` });
}

export function createWebApp(ctx: WebContext, hostOk: (host: string | undefined) => boolean): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  app.use("*", async (c, next) => {
    const host = c.req.header("host");
    if (!hostOk(host)) {
      ctx.log(`web: refused a request for host ${JSON.stringify(host ?? "")} (not the listen address or [web_ui] allowed_hosts)`);
      return c.text("This server answers only to its own address.", 403);
    }
    await next();
    c.header("Content-Security-Policy", CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  });

  app.get("/assets/style.css", (c) => c.body(STYLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "max-age=3600" }));
  app.get("/assets/app.js", (c) => c.body(APP_JS, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "max-age=3600" }));

  app.get("/signin", (c) => {
    const token = c.req.query("t") ?? "";
    const r = ctx.auth.redeem(token);
    if (!r.ok) {
      if (r.why === "rate") return c.html(signInPage("Too many sign-in attempts; wait a minute and try again."), 429);
      return c.html(signInPage("This sign-in link is not valid: it was used already, has expired, or was revoked."), 401);
    }
    c.header("Set-Cookie", `${COOKIE}=${r.cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${30 * 86400}`);
    // A page, not a redirect: the next request is then a same-site navigation, so the strict cookie goes with it.
    return c.html(`<!doctype html><html><head><meta http-equiv="refresh" content="0;url=/chat"><title>Signed in</title></head><body><a href="/chat">Signed in; continue</a></body></html>`);
  });

  // Everything below needs the session; a change also needs this page's Origin and the session's CSRF token.
  app.use("*", async (c, next) => {
    const session = ctx.auth.session(cookieOf(c.req.header("cookie")));
    const api = c.req.path.startsWith("/api/");
    if (!session) return api ? c.json({ error: "not signed in; run `scv web` for a sign-in link" }, 401) : c.html(signInPage("You are not signed in."), 401);
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const origin = c.req.header("origin");
      const host = c.req.header("host");
      if (!origin || (origin !== `http://${host}` && origin !== `https://${host}`)) {
        ctx.log(`web: refused a ${c.req.method} ${c.req.path} from origin ${JSON.stringify(origin ?? "(none)")}`);
        return c.json({ error: "refused: this request did not come from this page (Origin)" }, 403);
      }
      if (c.req.header("x-csrf-token") !== session.csrf) {
        ctx.log(`web: refused a ${c.req.method} ${c.req.path} without the page's CSRF token`);
        return c.json({ error: "refused: the page's CSRF token is missing or wrong; reload the page" }, 403);
      }
    }
    c.set("csrf", session.csrf);
    await next();
  });

  app.get("/", (c) => c.redirect("/chat", 303));
  registerChat(app, ctx);
  registerSessions(app, ctx);
  registerUsage(app, ctx);
  registerSchedules(app, ctx);
  registerMemory(app, ctx);
  registerHealth(app, ctx);
  app.notFound((c) => (c.req.path.startsWith("/api/") ? c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404) : c.html(page({ name: "signin", title: "Not found", body: html`<h1>Not found</h1><p><a href="/chat">Back to the chat</a></p>` }), 404)));
  app.onError((e, c) => {
    ctx.log(`web: ${c.req.method} ${c.req.path} failed: ${e.message}`);
    return c.req.path.startsWith("/api/") ? c.json({ error: e.message }, 500) : c.html(page({ name: "signin", title: "Error", body: html`<h1>Something went wrong</h1><p>${e.message}</p>` }), 500);
  });
  return app;
}
