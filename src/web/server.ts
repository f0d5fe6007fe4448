// The web page's HTTP server: Hono on the [web_ui] listen address, in the daemon. Every request passes the same
// gate: the Host must be the listen address (or a configured name: no DNS rebinding), a body is read only up to
// its cap, and anything beyond the sign-in link needs both halves of the session: the cookie, which a browser
// also sends to every other port of this host, and the page key (X-SCV-Key), which only this origin's page holds.
// With the cookie alone a page load gets an empty shell and everything else 403. A change also needs this page's
// Origin. Every answer carries a strict Content-Security-Policy and no CORS header. Nothing is read from disk for
// a request but what the pages show: there is no static file route, so no $SCV_HOME file can be fetched.
import { Hono } from "hono";
import { isLoopbackHost } from "../config/web-ui";
import { APP_JS, STYLE_CSS } from "./assets";
import type { WebContext, WebEnv } from "./context";
import { html, page, shell, signedIn } from "./html";
import { registerChat } from "./pages/chat";
import { registerHealth } from "./pages/health";
import { registerMemory } from "./pages/memory";
import { registerSandbox } from "./pages/sandbox";
import { registerSchedules } from "./pages/schedules";
import { registerSessions } from "./pages/sessions";
import { registerUsage } from "./pages/usage";
import { readCapped } from "./request";

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

/**
 * Why a request is not this page's own, or undefined: a change must name this page's Origin (scheme, host and
 * port); a read may omit it, but must not name another; the browser's Sec-Fetch-Site must not say the request
 * came from another site or another port of this host ("same-site").
 */
function foreignOrigin(req: Request, host: string | undefined, read: boolean): string | undefined {
  const origin = req.headers.get("origin");
  if (origin === null ? !read : origin !== `http://${host}` && origin !== `https://${host}`) return `origin ${JSON.stringify(origin ?? "(none)")}`;
  const site = req.headers.get("sec-fetch-site");
  if (site === "same-site" || site === "cross-site") return `Sec-Fetch-Site ${site}`;
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

  // Every body is read within its cap before anything else looks at the request, signed in or not.
  app.use("*", async (c, next) => {
    if (!c.req.raw.body) return next();
    const read = await readCapped(c.req.raw);
    if (!read.ok) {
      ctx.log(`web: refused a ${c.req.method} ${c.req.path}: ${read.error}`);
      return c.json({ error: read.error }, read.status);
    }
    c.set("body", read.text);
    await next();
  });

  app.get("/assets/style.css", (c) => c.body(STYLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "max-age=3600" }));
  app.get("/assets/app.js", (c) => c.body(APP_JS, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "max-age=3600" }));

  app.get("/signin", (c) => {
    const token = c.req.query("t") ?? "";
    const r = ctx.auth.redeem(token, c.env?.client ?? "unknown");
    if (!r.ok) {
      if (r.why === "rate") return c.html(signInPage("Too many bad sign-in links from this address; wait a minute (a valid link from `scv web` still works)."), 429);
      return c.html(signInPage("This sign-in link is not valid: it was used already, has expired, or was revoked."), 401);
    }
    c.header("Set-Cookie", `${COOKIE}=${r.cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${30 * 86400}`);
    // A page, not a redirect: its script keeps the page key, then opens the chat (a same-site navigation, so the
    // strict cookie goes with it). This answer is the only one that ever holds the key, and the link works once.
    return c.html(signedIn(r.key));
  });

  app.get("/", (c) => c.redirect("/chat", 303)); // before the gate: a shell's script would load /chat at "/"

  // Everything below needs the session: the cookie and the page key; a change also needs this page's Origin.
  app.use("*", async (c, next) => {
    const session = ctx.auth.session(cookieOf(c.req.header("cookie")));
    const api = c.req.path.startsWith("/api/");
    if (!session) return api ? c.json({ error: "not signed in; run `scv web` for a sign-in link" }, 401) : c.html(signInPage("You are not signed in."), 401);
    const read = c.req.method === "GET" || c.req.method === "HEAD";
    const key = c.req.header("x-scv-key");
    // A page load (a navigation cannot carry a header): the shell, which holds nothing; its script asks again with the key.
    if (read && !api && key === undefined) return c.html(shell());
    const foreign = foreignOrigin(c.req.raw, c.req.header("host"), read);
    if (foreign) {
      ctx.log(`web: refused a ${c.req.method} ${c.req.path} from ${foreign}`);
      return c.json({ error: `refused: this request did not come from this page (${foreign})` }, 403);
    }
    if (!ctx.auth.keyed(session, key)) {
      ctx.log(`web: refused a ${c.req.method} ${c.req.path} without the page's key (the cookie alone opens nothing)`);
      return c.json({ error: "refused: the page's key (X-SCV-Key) is missing or wrong; the cookie alone opens nothing. Reload the page, or sign in again with `scv web`" }, 403);
    }
    await next();
  });

  registerChat(app, ctx);
  registerSessions(app, ctx);
  registerUsage(app, ctx);
  registerSchedules(app, ctx);
  registerMemory(app, ctx);
  registerHealth(app, ctx);
  registerSandbox(app, ctx);
  app.notFound((c) => (c.req.path.startsWith("/api/") ? c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404) : c.html(page({ name: "signin", title: "Not found", body: html`<h1>Not found</h1><p><a href="/chat">Back to the chat</a></p>` }), 404)));
  app.onError((e, c) => {
    ctx.log(`web: ${c.req.method} ${c.req.path} failed: ${e.message}`);
    return c.req.path.startsWith("/api/") ? c.json({ error: e.message }, 500) : c.html(page({ name: "signin", title: "Error", body: html`<h1>Something went wrong</h1><p>${e.message}</p>` }), 500);
  });
  return app;
}
