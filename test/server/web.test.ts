// web_fetch approval over the protocol, with and without web.auto_approve_domains, and the hosted search tool
// in the model request. The fetched host is a local HTTPS server reached through an injected resolver and CA
// (test-only session services); nothing connects anywhere but 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { makeCerts, type TestCerts } from "../fake/tls";
import { type Harness, startHarness } from "../fake/harness";
import { text, toolCalls } from "../fake/model-server";
import { allowPort, tableLookup } from "../net/helpers";
import { needs } from "../fake/needs";

let certs: TestCerts;
let site: ReturnType<typeof Bun.serve>;
let h: Harness | undefined;

describe.skipIf(!needs("openssl"))("web_fetch and hosted search over the protocol", () => {
  beforeAll(() => {
    certs = makeCerts(["docs.test", "other.test"]);
    site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: { cert: certs.cert, key: certs.key },
      fetch: (req) => new Response(`<html><body><h1>Page for ${new URL(req.url).hostname}</h1><a href="/next">next</a></body></html>`, { headers: { "content-type": "text/html" } }),
    });
  });
  afterAll(() => site.stop(true));
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const services = () => ({
    net: { lookup: tableLookup({ "docs.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] }), allow: allowPort(site.port!), tls: { ca: certs.ca } },
  });

  test("an allowlisted HTTPS host is read_only: fetched without asking", async () => {
    h = await startHarness({ services, config: `[web]\nauto_approve_domains = ["docs.test"]\n` });
    const url = `https://docs.test:${site.port}/guide?q=1`;
    h.fake.queue(toolCalls([{ name: "web_fetch", arguments: { url } }]), text("read it"));
    const sid = await h.start();
    await h.turn(sid, "read the guide");
    expect(h.events.some((e) => e.method === "approval.requested")).toBe(false);
    const started = h.events.find((e) => e.method === "tool.started")!.params;
    expect(started.risk).toBe("read_only");
    const done = h.events.find((e) => e.method === "tool.completed")!.params;
    expect(done.ok).toBe(true);
    expect(done.output).toContain("Page for docs.test");
  });

  test("any other host is network risk: the approval shows the full URL", async () => {
    h = await startHarness({ services, config: `[web]\nauto_approve_domains = ["docs.test"]\n` });
    const url = `https://other.test:${site.port}/leak?data=secret-bits`;
    h.fake.queue(toolCalls([{ name: "web_fetch", arguments: { url } }]), text("fetched"));
    const sid = await h.start();
    const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "fetch" });
    const asked = await h.waitFor("approval.requested");
    expect(asked.risk).toBe("network");
    expect(asked.summary).toContain(url);
    await h.request("approval.resolve", { session_id: sid, approval_id: asked.approval_id, approved: true });
    await h.waitFor("turn.ended", (p) => p.turn_id === turn_id);
    expect(h.events.find((e) => e.method === "tool.completed")!.params.output).toContain("Page for other.test");
  });

  test('web.search = "provider" puts the hosted web_search tool in every request, but not in a tool-free session', async () => {
    h = await startHarness({ services, config: `[web]\nsearch = "provider"\n` });
    h.fake.queue(text("with tools"), text("without tools"));
    const sid = await h.start();
    await h.turn(sid, "search something");
    expect(h.fake.requests[0]!.body.tools).toContainEqual({ type: "web_search" });
    const bare = await h.request("session.start", { cwd: h.workspace, tools: false });
    await h.turn(bare.session_id, "no tools here");
    expect(JSON.stringify(h.fake.requests[1]!.body.tools ?? [])).not.toContain("web_search");
  });
});
