// The web page in a real browser: Debian's Chromium, headless, driven by playwright-core, against the real daemon
// (dist/scv) with the scripted model. Skipped, saying so, where /usr/bin/chromium is not installed.
// SCV_WEB_SCREENSHOTS=1 writes each page's screenshot to docs/web/ (the README shows them).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, waitFor } from "../channels/helpers";
import { launchChromium, signInLink, startWebDaemon, type WebDaemon } from "./helpers";
import { needs } from "../fake/needs";

// The functions passed to page.waitForFunction run in the browser, where `document` exists.
declare const localStorage: { getItem(k: string): string | null };
declare const document: { cookie: string; querySelector(s: string): { textContent: string | null } | null; querySelectorAll(s: string): Iterable<{ textContent: string | null; classList: { contains(c: string): boolean } }> };

const available = needs("chromium");
const SHOTS = process.env.SCV_WEB_SCREENSHOTS === "1" ? resolve(import.meta.dir, "../../docs/web") : undefined;

// Frames 15 ms apart, so a reply streams over a visible while.
const fake = fakeModelForFile({ frameDelayMs: 15 });
let d: WebDaemon;
let chrome: Awaited<ReturnType<typeof launchChromium>> | undefined;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!available) return;
  d = await startWebDaemon(fake.url, "", "[limits]\ndaily_tokens = 20000\n");
  const added = await runBinary(["schedules", "add", "--every", "1d", "water the plants"], d.env, d.root);
  if (added.code !== 0) throw new Error(`scv schedules add: ${added.stderr}`);
  chrome = await launchChromium();
  browser = chrome.browser;
  page = browser.pages()[0] ?? (await browser.newPage());
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await cleanupBridges();
});

/** Opens a page and waits until its script has loaded it with the page key (a page load alone is an empty shell). */
async function open(path: string, p: Page = page): Promise<void> {
  await p.goto(`${d.base}${path}`);
  await p.waitForSelector("body[data-ready]", { state: "attached", timeout: 20_000 });
}

async function shot(name: string, p: Page = page): Promise<void> {
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  } else expect((await p.screenshot()).length).toBeGreaterThan(1000);
}

test.skipIf(!available)("the sign-in link opens the chat page; the page then holds the session", async () => {
  await page.goto(await signInLink(d));
  await page.waitForURL(`${d.base}/chat`);
  expect(await page.locator("nav a[aria-current]").textContent()).toBe("Chat");
  const cookies = await browser.cookies(d.base);
  const session = cookies.find((c) => c.name === "scv_web")!;
  expect(session.httpOnly).toBe(true);
  expect(session.sameSite).toBe("Strict");
  expect(await page.evaluate(() => document.cookie)).toBe(""); // HttpOnly: no script sees it
  // The page key is in this origin's storage, never in a cookie.
  const key = await page.evaluate(() => localStorage.getItem("scv-web-key"));
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(cookies.map((c) => c.name)).toEqual(["scv_web"]);
  expect(JSON.stringify(cookies)).not.toContain(key!);
}, 60_000);

test.skipIf(!available)("a page on another port of this host receives the cookie, and the cookie opens nothing there", async () => {
  let received = "";
  const other = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      received ||= req.headers.get("cookie") ?? "";
      return new Response("<!doctype html><title>dev server</title><p>a dev server</p>", { headers: { "content-type": "text/html" } });
    },
  });
  try {
    const tab = await browser.newPage();
    await tab.goto(`http://127.0.0.1:${other.port}/`);
    await tab.close();
    // The browser sent SCV's cookie to the other port (cookies ignore ports)...
    const cookie = received.split(/;\s*/).find((c) => c.startsWith("scv_web="))!;
    expect(cookie).toBeDefined();
    // ...and replayed from there, with every other header forged, it gets an empty shell and 403s.
    const headers = { cookie, origin: d.base, "sec-fetch-site": "same-origin" };
    const chat = await (await fetch(`${d.base}/chat`, { headers })).text();
    expect(chat).toContain('id="shell"');
    expect(chat).not.toContain("hello from the browser");
    expect((await fetch(`${d.base}/api/live`, { headers })).status).toBe(403);
    expect((await fetch(`${d.base}/api/chat`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ id: "from-other-port", text: "hi" }) })).status).toBe(403);
  } finally {
    other.stop(true);
  }
}, 60_000);

test.skipIf(!available)("a chat round trip with the model: the reply streams into the page, then stands as the answer", async () => {
  const answer = "Here is a long answer that arrives in many small pieces, so the page shows it growing before the turn ends.";
  fake.queue(text(answer));
  await page.fill("#send textarea", "hello from the browser");
  await page.keyboard.press("Enter");
  // Part of the answer is on the page while the rest is still coming.
  await page.waitForFunction((full) => {
    const t = document.querySelector("li.pending .text")?.textContent ?? "";
    return t.length > 0 && t.length < full.length;
  }, answer, { timeout: 20_000, polling: 10 });
  await page.waitForFunction((full) => [...document.querySelectorAll("#messages li.scv")].some((li) => li.textContent === full && !li.classList.contains("pending")), answer, { timeout: 20_000 });
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("hello from the browser");
  await shot("chat");
}, 60_000);

test.skipIf(!available)("approvals are asked in the page: allowed on the live page, denied with a reason in the chat", async () => {
  fake.queue(toolCalls([{ name: "write", arguments: { path: "from-browser.txt", content: "written after a click\n", mode: "create" } }]), toolCalls([{ name: "write", arguments: { path: "not-this.txt", content: "no\n", mode: "create" } }]), text("done: one written, one refused"));
  const live = await browser.newPage();
  await open("/live", live);
  await page.fill("#send textarea", "write two files");
  await page.keyboard.press("Enter");
  // The live page shows the running turn and the card, with what will change.
  const card = live.locator(".card", { hasText: "from-browser.txt" });
  await card.waitFor({ timeout: 20_000 });
  expect(await card.textContent()).toContain("written after a click");
  expect(await live.locator(".session", { hasText: "web chat" }).count()).toBeGreaterThan(0);
  expect(existsSync(join(d.workspace, "from-browser.txt"))).toBe(false);
  await shot("live", live);
  await card.locator("button", { hasText: "Allow once" }).click();
  await waitFor(() => existsSync(join(d.workspace, "from-browser.txt")), 20_000, "the approved write");
  expect(readFileSync(join(d.workspace, "from-browser.txt"), "utf8")).toBe("written after a click\n");
  // The second request, in the chat page: denied with a reason the model is told.
  const second = page.locator("#approvals .card", { hasText: "not-this.txt" });
  await second.waitFor({ timeout: 20_000 });
  await second.locator("input").fill("wrong file name");
  await second.locator("button", { hasText: "Deny" }).click();
  await page.locator("#messages li.scv", { hasText: "done: one written, one refused" }).waitFor({ timeout: 20_000 });
  expect(existsSync(join(d.workspace, "not-this.txt"))).toBe(false);
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("wrong file name");
  await live.close();
  // The turn's tool calls stay under its reply, folded, after the turn ends and after a reload (issue 54).
  for (const reload of [false, true]) {
    if (reload) await open("/chat");
    const reply = page.locator("#messages li.scv", { hasText: "done: one written, one refused" }).last();
    const calls = reply.locator("details.calls");
    expect(await calls.locator("summary").textContent()).toBe("2 tool calls, 1 denied or failed");
    const items = await calls.locator("li").allTextContents();
    expect(items).toHaveLength(2);
    expect(items[0]).toMatch(/^✓ write from-browser\.txt/);
    expect(items[1]).toBe("⊘ write not-this.txt (denied: wrong file name)");
    expect(await reply.locator(".text").textContent()).toBe("done: one written, one refused");
  }
}, 90_000);

test.skipIf(!available)("the usage page's numbers are `scv usage --json`'s for the same period", async () => {
  const asCli = (r: Record<string, number | string>) => ({ key: String(r.key), requests: String(r.requests), input: String(r.input_tokens), cached: String(r.cached_input_tokens), output: String(r.output_tokens), reasoning: String(r.reasoning_tokens) });
  const pick = (r: Record<string, string | undefined>) => ({ key: r.key, requests: r.requests, input: r.input, cached: r.cached, output: r.output, reasoning: r.reasoning });
  const cli = async (since: string, by: string) => {
    const r = await runBinary(["usage", "--json", "--since", since, "--by", by], d.env, d.root);
    expect(r.code).toBe(0);
    const want = JSON.parse(r.stdout) as { rows: Record<string, number | string>[]; total: Record<string, number> };
    return [...want.rows.map(asCli), asCli({ ...want.total, key: "total" })];
  };
  for (const since of ["7d", "today"]) {
    for (const by of ["day", "model", "agent", "origin"]) {
      // The ledger must stand still across the comparison (a turn's entry may land a moment after its reply):
      // the CLI is asked before and after the page, and only an unchanged ledger is compared.
      for (let attempt = 0; ; attempt++) {
        const before = await cli(since, by);
        await open(`/usage?since=${since}`);
        const shown = (await page.$$eval(`tr[data-by="${by}"]`, (rows) => rows.map((r) => ({ ...(r as unknown as { dataset: Record<string, string> }).dataset })))).map(pick);
        const after = await cli(since, by);
        if (JSON.stringify(before) !== JSON.stringify(after) && attempt < 5) continue;
        expect(shown).toEqual(after);
        expect(after.length).toBeGreaterThan(1); // some usage, and the total
        break;
      }
    }
  }
  expect(await page.locator("svg line.limit").count()).toBeGreaterThan(0); // daily_tokens drawn as a line
  await open(`/usage?since=7d`);
  await shot("usage");
}, 60_000);

test.skipIf(!available)("a schedule paused in the page is paused for `scv schedules list`; resumed again", async () => {
  await open(`/schedules`);
  const row = page.locator("tr[data-schedule]", { hasText: "water the plants" });
  expect(await row.textContent()).toContain("next ");
  await row.locator("button", { hasText: "Pause" }).click();
  await page.locator("tr[data-schedule] button", { hasText: "Resume" }).waitFor({ timeout: 20_000 });
  const listed = JSON.parse((await runBinary(["schedules", "list", "--json"], d.env, d.root)).stdout) as { schedules: { prompt: string; paused?: boolean; status: string }[] };
  const s = listed.schedules.find((x) => x.prompt === "water the plants")!;
  expect(s.paused).toBe(true);
  expect(s.status).toBe("paused");
  await page.locator("tr[data-schedule] button", { hasText: "Resume" }).click();
  await page.locator("tr[data-schedule] button", { hasText: "Pause" }).waitFor({ timeout: 20_000 });
  expect((JSON.parse((await runBinary(["schedules", "list", "--json"], d.env, d.root)).stdout) as { schedules: { paused?: boolean }[] }).schedules[0]!.paused).toBe(false);
  await shot("schedules");
}, 60_000);

test.skipIf(!available)("memory edited in the page is in the next session's request; a key is refused", async () => {
  await open(`/memory`);
  const user = page.locator('form[data-scope="user"]');
  await user.locator("textarea").fill("- The owner drinks green tea, never coffee.\n- my key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd\n");
  await user.locator("button").click();
  await user.locator(".note.error").waitFor({ timeout: 20_000 });
  expect(await user.locator(".note").textContent()).toContain("not saved");
  await user.locator("textarea").fill("- The owner drinks green tea, never coffee.\n");
  await user.locator("button").click();
  await user.locator(".note.ok").waitFor({ timeout: 20_000 });
  await shot("memory");
  // A new conversation: its session reads memory as it starts.
  fake.queue(text("noted"));
  await open(`/chat`);
  await page.fill("#send textarea", "/new");
  await page.keyboard.press("Enter");
  await page.locator("#messages li", { hasText: "Started a new conversation" }).waitFor({ timeout: 20_000 });
  const before = fake.requests.length;
  await page.fill("#send textarea", "what do I drink?");
  await page.keyboard.press("Enter");
  await page.locator("#messages li.scv", { hasText: "noted" }).waitFor({ timeout: 20_000 });
  expect(fake.requests.length).toBe(before + 1);
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("green tea, never coffee");
}, 60_000);

test.skipIf(!available)("sessions list, search and transcript; health shows what scv doctor reports", async () => {
  await open(`/sessions?q=${encodeURIComponent("write two files")}`);
  const hit = page.locator("table a").first();
  await hit.click();
  await page.waitForURL(/\/sessions\/s-/);
  expect(await page.locator("main").textContent()).toContain("from-browser.txt");
  // The denied write is marked and never shown as applied; the approved one is, as a coloured, numbered diff.
  const denied = page.locator(".call.denied", { hasText: "not-this.txt" });
  expect(await denied.locator("strong").textContent()).toBe("⊘ write not-this.txt (denied: wrong file name)");
  expect(await denied.locator(".badge").textContent()).toBe("denied · not applied");
  expect(await denied.locator("pre.diff:not(.not-applied)").count()).toBe(0);
  const applied = page.locator(".call.ran", { hasText: "from-browser.txt" });
  expect(await applied.locator(".badge").count()).toBe(0);
  expect(await applied.locator("pre.diff .add").first().textContent()).toBe("   1+written after a click");
  await shot("transcript");
  await open(`/sessions`);
  await shot("sessions");
  await open("/health");
  const doctor = await runBinary(["doctor"], d.env, d.root);
  const areas = await page.$$eval("main tr td:nth-child(2)", (cells) => cells.map((c) => c.textContent));
  for (const area of ["binary", "config", "provider", "daemon", "web page"]) {
    expect(areas).toContain(area);
    expect(doctor.stdout).toContain(`${area}:`);
  }
  await shot("health");
}, 60_000);

test.skipIf(!available)("every page at 390x844 (a phone) and 1280x800: no horizontal scroll, the chat input pinned, actions reachable", async () => {
  const pages = ["chat", "live", "sessions", "usage", "schedules", "memory", "health"];
  for (const [width, height, suffix] of [[390, 844, "-phone"], [1280, 800, ""]] as const) {
    await page.setViewportSize({ width, height });
    for (const name of pages) {
      await open(`/${name}`);
      const wide = await page.evaluate(() => {
        const doc = (globalThis as any).document.documentElement;
        return { scroll: doc.scrollWidth, client: doc.clientWidth };
      });
      expect(`${name} at ${width}: ${wide.scroll}`).toBe(`${name} at ${width}: ${wide.client}`);
      if (suffix) await shot(`${name}${suffix}`);
    }
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await open("/chat");
  const box = await page.locator("#send").boundingBox();
  expect(box!.y + box!.height).toBeLessThanOrEqual(844 + 1);
  await open("/schedules");
  const button = page.locator("button", { hasText: "Run now" }).first();
  const b = await button.boundingBox();
  expect(b!.x + b!.width).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1000, height: 760 });
}, 120_000);
