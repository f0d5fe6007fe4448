// The web page through the real daemon: dist/scv daemon run with [web_ui] on a free loopback port, the scripted
// model, and `scv web` for sign-in links. Plain fetch for the security tests; the browser tests drive Chromium.
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { runBinary } from "../fake/binary";
import { type Bridge, makeBridge, startDaemon, waitFor } from "../channels/helpers";

export interface WebDaemon extends Bridge {
  base: string;
  host: string;
}

/** `webUi`: more [web_ui] keys; `more`: more tables, such as [limits]. */
export async function startWebDaemon(modelUrl: string, webUi = "", more = ""): Promise<WebDaemon> {
  const b = makeBridge(modelUrl);
  appendFileSync(join(b.home, "config.toml"), `\n[web_ui]\nenabled = true\nlisten = "127.0.0.1:0"\n${webUi}\n${more}\n`);
  await startDaemon(b);
  await waitFor(() => /web page on (http:\/\/127\.0\.0\.1:\d+)/.test(b.logText()), 25_000, `the web page; log:\n${b.logText()}`);
  const base = /web page on (http:\/\/127\.0\.0\.1:\d+)/.exec(b.logText())![1]!;
  return Object.assign(b, { base, host: base.slice("http://".length) });
}

/** Waits until the daemon's log holds `line` (it writes a moment after it answers): an event, not a sleep. */
export function logged(d: WebDaemon, line: string): Promise<void> {
  return waitFor(() => d.logText().includes(line), 25_000, `the log line ${JSON.stringify(line)}; log:\n${d.logText()}`);
}

/** A fresh one-time sign-in link from `scv web`. */
export async function signInLink(d: WebDaemon): Promise<string> {
  const r = await runBinary(["web"], d.env, d.root);
  if (r.code !== 0) throw new Error(`scv web failed: ${r.stderr}`);
  return r.stdout.trim();
}

export interface WebAuthHeaders {
  cookie: string;
  key: string;
}

/** Signs in with a fresh link: the cookie header and the page key the sign-in answer hands the page. */
export async function signIn(d: WebDaemon): Promise<WebAuthHeaders> {
  const res = await fetch(await signInLink(d), { redirect: "manual" });
  const set = res.headers.get("set-cookie") ?? "";
  const cookie = set.split(";")[0]!;
  if (!cookie.startsWith("scv_web=")) throw new Error(`no session cookie (HTTP ${res.status})`);
  const key = /<meta name="scv-key" content="([^"]+)">/.exec(await res.text())?.[1];
  if (!key) throw new Error("no page key in the sign-in answer");
  return { cookie, key };
}

/** A read as the page's script makes it: the cookie and the page key. */
export function get(d: WebDaemon, path: string, auth: WebAuthHeaders, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${d.base}${path}`, { headers: { cookie: auth.cookie, "x-scv-key": auth.key, ...headers } });
}

/** A state-changing request as the page makes it (Origin and page key), with what may be overridden. */
export function post(d: WebDaemon, path: string, body: unknown, auth: WebAuthHeaders, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${d.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: d.base, cookie: auth.cookie, "x-scv-key": auth.key, ...headers },
    body: JSON.stringify(body),
  });
}

/** Debian's Chromium, where the browser tests expect it. */
export const CHROMIUM = "/usr/bin/chromium";

/** Chromium, headless, in a throwaway profile (playwright-core loads here, only for the browser tests); close() removes the profile. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "scv-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1000, height: 760 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
