// The web page's gate without a browser: Host, Origin, the page key, the one-time link, the cookie, the CSP, escaping of
// model output, no $SCV_HOME file served, --revoke, sign-in rate limit, and an address in use failing the start.
import { afterAll, afterEach, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile, runBinary } from "../fake/binary";
import { text } from "../fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, waitFor } from "../channels/helpers";
import { get, logged, post, signIn, signInLink, startWebDaemon, type WebDaemon } from "./helpers";

const fake = fakeModelForFile();
afterEach(() => {
  fake.clear();
  fake.requests.length = 0;
});
afterAll(cleanupBridges);

let shared: WebDaemon | undefined;
async function daemon(): Promise<WebDaemon> {
  return (shared ??= await startWebDaemon(fake.url));
}

test("a sign-in link works once: the replay gets the sign-in page and no cookie; no cookie, no page", async () => {
  const d = await daemon();
  const link = await signInLink(d);
  expect(link).toStartWith(`${d.base}/signin?t=`);
  const first = await fetch(link, { redirect: "manual" });
  expect(first.status).toBe(200);
  const cookie = first.headers.get("set-cookie")!;
  expect(cookie).toMatch(/^scv_web=[A-Za-z0-9_-]{40,};/);
  expect(cookie).toContain("HttpOnly");
  expect(cookie).toContain("SameSite=Strict");

  const replay = await fetch(link, { redirect: "manual" });
  expect(replay.status).toBe(401);
  expect(replay.headers.get("set-cookie")).toBeNull();
  const body = await replay.text();
  expect(body).toContain("not valid");
  expect(body).not.toContain('name="scv-key"');

  for (const path of ["/chat", "/usage", "/memory"]) {
    const res = await fetch(`${d.base}${path}`);
    expect(res.status).toBe(401);
    const page = await res.text();
    expect(page).toContain("Sign in to SCV");
    expect(page).not.toContain("<nav>");
  }
  expect((await fetch(`${d.base}/api/live`)).status).toBe(401);
  expect((await fetch(`${d.base}/chat`, { headers: { cookie: "scv_web=forged-value-that-is-long-enough-0123456789" } })).status).toBe(401);
  // The token is in no log and no file of $SCV_HOME.
  const token = new URL(link).searchParams.get("t")!;
  expect(d.logText()).not.toContain(token);
  expect(grepTree(d.home, token)).toEqual([]);
}, 30_000);

test("a foreign Host is refused (403, logged) even with a valid cookie: no DNS rebinding", async () => {
  const d = await daemon();
  const auth = await signIn(d);
  const port = new URL(d.base).port;
  for (const host of [`evil.example:${port}`, `attacker.test`, `127.0.0.1.nip.io:${port}`]) {
    const res = await get(d, "/chat", auth, { host });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain("<nav>");
  }
  await logged(d, 'web: refused a request for host "evil.example:');
  // localhost is this machine's own name: allowed.
  expect((await get(d, "/chat", auth, { host: `localhost:${port}` })).status).toBe(200);
}, 30_000);

test("a change needs this page's Origin and the page key: foreign or missing ones are refused and logged", async () => {
  const d = await daemon();
  const auth = await signIn(d);
  const body = { id: "origin-test-0001", text: "should never be queued" };
  const foreign = await post(d, "/api/chat", body, auth, { origin: "http://evil.example" });
  expect(foreign.status).toBe(403);
  await logged(d, 'web: refused a POST /api/chat from origin "http://evil.example"');
  const noOrigin = await fetch(`${d.base}/api/chat`, { method: "POST", headers: { cookie: auth.cookie, "x-scv-key": auth.key, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(noOrigin.status).toBe(403);
  const wrongKey = await post(d, "/api/chat", body, { cookie: auth.cookie, key: "wrong" });
  expect(wrongKey.status).toBe(403);
  // Another port of this host is another origin: refused by Origin, and by the browser's Sec-Fetch-Site.
  const port = Number(new URL(d.base).port);
  expect((await post(d, "/api/chat", body, auth, { origin: `http://127.0.0.1:${port + 1}` })).status).toBe(403);
  expect((await post(d, "/api/chat", body, auth, { "sec-fetch-site": "same-site" })).status).toBe(403);
  // Nothing reached the model, and no CORS header is ever sent.
  await Bun.sleep(300);
  expect(fake.requests.length).toBe(0);
  expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  const page = await get(d, "/chat", auth, { origin: "http://evil.example" });
  expect(page.status).toBe(403);
  expect(page.headers.get("access-control-allow-origin")).toBeNull();
  expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
  expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
  expect(page.headers.get("x-frame-options")).toBe("DENY");
}, 30_000);

test("a script in a model reply is text on the page, never markup", async () => {
  const d = await daemon();
  const auth = await signIn(d);
  const evil = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`;
  fake.queue(text(evil));
  expect((await post(d, "/api/chat", { id: "xss-test-0001", text: "say something nasty" }, auth)).status).toBe(202);
  let page = "";
  await waitFor(async () => (page = await (await get(d, "/chat", auth)).text()).includes("window.pwned=1"), 20_000, "the reply on the chat page");
  expect(page).toContain("&lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;");
  expect(page).not.toContain("<script>window.pwned");
  expect(page).not.toContain("<img src=x");
  // The session transcript escapes it too.
  const list = await (await get(d, "/sessions", auth)).text();
  const id = /href="\/sessions\/(s-[0-9a-f]+)"/.exec(list)![1]!;
  const transcript = await (await get(d, `/sessions/${id}`, auth)).text();
  expect(transcript).toContain("&lt;script&gt;window.pwned=1");
  expect(transcript).not.toContain("<script>window.pwned");
}, 40_000);

test("no $SCV_HOME file is served; the same message ID twice is one message", async () => {
  const d = await daemon();
  const auth = await signIn(d);
  for (const path of ["/config.toml", "/../config.toml", "/assets/../config.toml", "/%2e%2e/config.toml", "/state/", "/run/scv.sock"]) {
    const res = await get(d, path, auth);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("[providers");
  }
  fake.queue(text("once"), text("twice"));
  for (let i = 0; i < 3; i++) expect((await post(d, "/api/chat", { id: "dedupe-test-01", text: "only once please" }, auth)).status).toBe(202);
  await waitFor(async () => (await (await get(d, "/chat", auth)).text()).includes(">once<"), 20_000, "the reply");
  await Bun.sleep(500);
  expect(fake.pending()).toBe(1); // the repeats were not turns
}, 40_000);

test("scv web --revoke ends every web session; bad sign-in attempts are rate-limited", async () => {
  const d = await daemon();
  const auth = await signIn(d);
  expect((await get(d, "/chat", auth)).status).toBe(200);
  const unused = await signInLink(d);
  const r = await runBinary(["web", "--revoke"], d.env, d.root);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/ended \d+ web session/);
  expect((await get(d, "/chat", auth)).status).toBe(401);
  expect((await fetch(unused, { redirect: "manual" })).status).toBe(401);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await fetch(`${d.base}/signin?t=guess${i}`, { redirect: "manual" })).status);
  expect(statuses).toContain(429);
  // A good link is never refused for them (a flood cannot keep the owner out: see cross-port.test.ts).
  expect((await fetch(await signInLink(d), { redirect: "manual" })).status).toBe(200);
  const bad = await runBinary(["web", "--bogus"], d.env, d.root);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--bogus");
}, 40_000);

test("a listen address in use fails `scv daemon start`, naming it, and no channel starts", async () => {
  const squatter = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
  try {
    const b = makeBridge(fake.url);
    appendFileSync(join(b.home, "config.toml"), `\n[web_ui]\nenabled = true\nlisten = "127.0.0.1:${squatter.port}"\n`);
    sendMessage(b, { text: "hello" });
    const r = await runBinary(["daemon", "start"], b.env, b.root);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`127.0.0.1:${squatter.port}`);
    expect(r.stderr).toContain("already in use");
    // The dir channel never took the message in.
    expect(readdirSync(join(b.chat, "in")).length).toBe(1);
    expect(existsSync(join(b.home, "run", "scv.sock"))).toBe(false);
  } finally {
    squatter.stop(true);
  }
}, 30_000);

function grepTree(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        try {
          if (Bun.file(p).size < 8 * 1024 * 1024 && require("node:fs").readFileSync(p, "latin1").includes(needle)) hits.push(p);
        } catch {}
      }
    }
  };
  walk(dir);
  return hits;
}
