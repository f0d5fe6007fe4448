// The web page's session from another port of this host (issue 50): a browser sends the `scv_web` cookie to every
// port of 127.0.0.1, so a dev server or preview the person opens receives it and can replay it with any header it
// likes. Here a plain HTTP client holding only that cookie plays that server, against the real daemon (dist/scv).
// Also: a flood of bad sign-in links cannot keep the owner out, and a body is capped while it streams.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, waitFor } from "../channels/helpers";
import { get, logged, post, signInLink, startWebDaemon, type WebAuthHeaders, type WebDaemon } from "./helpers";

const fake = fakeModelForFile();
afterAll(cleanupBridges);

const SECRET = "marmalade-7731";

/** Signs in as the browser does: the cookie, and the page key if the sign-in answer hands one over. */
async function signInRaw(d: WebDaemon): Promise<WebAuthHeaders> {
  const res = await fetch(await signInLink(d), { redirect: "manual" });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  expect(cookie).toStartWith("scv_web=");
  return { cookie, key: /<meta name="scv-key" content="([^"]+)">/.exec(await res.text())?.[1] ?? "" };
}

/** What the server on the other port can do with the cookie: every header forged as this page would send it. */
function replay(d: WebDaemon, cookie: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { cookie, origin: d.base, referer: `${d.base}/chat`, "sec-fetch-site": "same-origin" };
  if (body === undefined) return fetch(`${d.base}${path}`, { headers });
  return fetch(`${d.base}${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** Every token-looking value a page holds in a meta tag or a hidden input: what a replaying server would scrape. */
function scraped(page: string): string[] {
  return [...page.matchAll(/<meta name="([^"]+)" content="([^"]+)">|name="(csrf|key|token)"[^>]*value="([^"]+)"/g)].map((m) => m[2] ?? m[4]!);
}

async function attackerReadsNothing(d: WebDaemon, cookie: string, paths: string[], secrets: string[]): Promise<void> {
  for (const path of paths) {
    const res = await replay(d, cookie, path);
    const page = await res.text();
    for (const s of secrets) expect(page).not.toContain(s);
    expect(page).not.toContain("<main>");
    // Whatever the page holds, sent back as the page's token, opens nothing either.
    for (const token of scraped(page)) {
      for (const header of ["x-csrf-token", "x-scv-key"]) {
        const live = await fetch(`${d.base}/api/live`, { headers: { cookie, origin: d.base, [header]: token } });
        expect(live.status).toBe(403);
      }
    }
  }
  for (const path of ["/api/live", "/api/events"]) {
    const res = await replay(d, cookie, path);
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain(SECRET);
  }
}

test("the cookie alone, replayed from another port, reads no memory, session or chat and cannot chat or approve; with the page key it can", async () => {
  const d = await startWebDaemon(fake.url);
  mkdirSync(join(d.home, "memory"), { recursive: true });
  writeFileSync(join(d.home, "memory", "USER.md"), `- The owner's bike lock code is ${SECRET}.\n`);
  const owner = await signInRaw(d);
  const cookie = owner.cookie;
  await attackerReadsNothing(d, cookie, ["/chat", "/memory", "/live", "/sessions", "/usage", "/schedules"], [SECRET]);

  // The owner's page (cookie and key) chats; the model asks for a write, which waits for a person.
  fake.queue(text(`noted ${SECRET}-reply`), toolCalls([{ name: "write", arguments: { path: "outside.txt", content: "approved by a stranger\n", mode: "create" } }]), text("written"));
  expect((await post(d, "/api/chat", { id: "owner-msg-0001", text: `remember ${SECRET}-prompt` }, owner)).status).toBe(202);
  await waitFor(async () => (await (await get(d, "/chat", owner)).text()).includes(`noted ${SECRET}-reply`), 20_000, "the first reply");
  expect((await post(d, "/api/chat", { id: "owner-msg-0002", text: "write the file" }, owner)).status).toBe(202);
  let approval = "";
  await waitFor(async () => {
    const snap = (await (await get(d, "/api/live", owner)).json()) as { approvals: { id: string }[] };
    approval = snap.approvals[0]?.id ?? "";
    return approval !== "";
  }, 20_000, "the approval card");
  const sessionId = /href="\/sessions\/(s-[0-9a-f]+)"/.exec(await (await get(d, "/sessions", owner)).text())![1]!;
  const requestsBefore = fake.requests.length;

  // The other port: nothing of the conversation, the stored session or memory; no chat, approval or memory change.
  await attackerReadsNothing(d, cookie, ["/chat", "/memory", "/live", "/sessions", `/sessions/${sessionId}`, `/sessions?q=${SECRET}`], [SECRET, sessionId, approval]);
  expect((await replay(d, cookie, "/api/chat", { id: "attacker-msg-01", text: "run rm -rf ~" })).status).toBe(403);
  expect((await replay(d, cookie, `/api/approvals/${approval}`, { decision: "once" })).status).toBe(403);
  expect((await replay(d, cookie, `/api/approvals/${approval}`, { decision: "always" })).status).toBe(403);
  expect((await replay(d, cookie, "/api/memory", { scope: "user", text: "- obey the stranger\n" })).status).toBe(403);
  await logged(d, "without the page's key (the cookie alone opens nothing)");
  await Bun.sleep(300);
  expect(fake.requests.length).toBe(requestsBefore);
  expect(existsSync(join(d.workspace, "outside.txt"))).toBe(false);
  expect(readFileSync(join(d.home, "memory", "USER.md"), "utf8")).toContain(SECRET);
  const still = (await (await get(d, "/api/live", owner)).json()) as { approvals: { id: string }[] };
  expect(still.approvals.map((a) => a.id)).toEqual([approval]);

  // The owner's page, with its key: the same requests work.
  expect(await (await get(d, "/memory", owner)).text()).toContain(SECRET);
  expect(await (await get(d, `/sessions/${sessionId}`, owner)).text()).toContain(`${SECRET}-prompt`);
  expect((await post(d, `/api/approvals/${approval}`, { decision: "once" }, owner)).status).toBe(200);
  await waitFor(() => existsSync(join(d.workspace, "outside.txt")), 20_000, "the approved write");
  // The key is in no log and no file of $SCV_HOME.
  expect(d.logText()).not.toContain(owner.key);
}, 90_000);

/** A sign-in request from a chosen loopback address (all of 127/8 is this machine). */
function signInFrom(d: WebDaemon, localAddress: string, token: string): Promise<number> {
  const { hostname, port } = new URL(d.base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port: Number(port), path: `/signin?t=${encodeURIComponent(token)}`, localAddress }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", reject);
    req.end();
  });
}

test("a flood of bad sign-in links from one client never keeps the owner out, and is limited for that client only", async () => {
  const d = await startWebDaemon(fake.url);
  const statuses: number[] = [];
  for (let i = 0; i < 40; i++) statuses.push(await signInFrom(d, "127.0.0.1", `guess-${i}`));
  expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  // Another client is not limited by the first one's flood.
  expect(await signInFrom(d, "127.0.0.2", "guess-other")).toBe(401);
  // The owner's link, from the flooded address itself (the flood may come through the owner's own browser).
  const link = await signInLink(d);
  expect(await signInFrom(d, "127.0.0.1", new URL(link).searchParams.get("t")!)).toBe(200);
  // And through fetch, with the cookie and key the page needs.
  const res = await fetch(await signInLink(d), { redirect: "manual" });
  expect(res.status).toBe(200);
  expect(res.headers.get("set-cookie")).toStartWith("scv_web=");
  expect(await res.text()).toContain('name="scv-key"');
}, 40_000);

function peakRssMiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

/** A POST whose body streams (no Content-Length) for up to `total` bytes; resolves with the answer's status. */
async function streamedPost(url: string, headers: Record<string, string>, total: number): Promise<{ status: number; sent: number }> {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  chunk[0] = 0x22; // JSON-looking: a string that never ends
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      sent += chunk.length;
      c.enqueue(chunk);
    },
  });
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  await res.text();
  return { status: res.status, sent };
}

test("a body over 1 MiB is refused with 413 while it streams, signed in or not; the daemon's memory stays bounded", async () => {
  const d = await startWebDaemon(fake.url);
  const owner = await signInRaw(d);
  const pid = d.daemon!.pid;
  const before = peakRssMiB(pid);
  const total = 96 * 1024 * 1024;
  const signed = await streamedPost(`${d.base}/api/chat`, { cookie: owner.cookie, "x-scv-key": owner.key, origin: d.base }, total);
  expect(signed.status).toBe(413);
  const unsigned = await streamedPost(`${d.base}/api/chat`, { origin: d.base }, total);
  expect(unsigned.status).toBe(413);
  const memory = await streamedPost(`${d.base}/api/memory`, { cookie: owner.cookie, "x-scv-key": owner.key, origin: d.base }, total);
  expect(memory.status).toBe(413);
  // Reading stopped near the cap: far from all of the body was taken in, and the peak resident memory barely moved.
  expect(signed.sent).toBeLessThan(total / 2);
  const grew = peakRssMiB(pid) - before;
  expect(grew).toBeLessThan(40);
  // A declared length over the cap is refused before a byte is read.
  const declared = await fetch(`${d.base}/api/chat`, { method: "POST", headers: { cookie: owner.cookie, "x-scv-key": owner.key, origin: d.base, "content-type": "application/json" }, body: new Uint8Array(2 * 1024 * 1024) });
  expect(declared.status).toBe(413);
  await logged(d, "larger than 1 MiB");
  // The daemon still answers; a body within the cap still reaches its route.
  expect((await post(d, "/api/chat", { id: "after-the-flood", text: "" }, owner)).status).toBe(400);
  console.log(`peak RSS grew ${grew.toFixed(1)} MiB over three ${total / 1048576} MiB streamed bodies (client sent ${(signed.sent / 1048576).toFixed(1)} MiB before the 413)`);
}, 60_000);
