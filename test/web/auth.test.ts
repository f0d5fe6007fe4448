import { expect, test } from "bun:test";
import { WebAuth } from "../../src/web/auth";
import { allowedHosts } from "../../src/web/server";
import { escapeHtml, html } from "../../src/web/html";
import { checkWebUi } from "../../src/doctor/checks";
import { WebUiConfig, type Config } from "../../src/config/schema";

test("a sign-in token opens one session, once; an expired one none; revoke ends sessions and voids tokens", () => {
  let now = 1_000_000;
  const auth = new WebAuth(() => now);
  const { token } = auth.mint();
  const first = auth.redeem(token, "127.0.0.1");
  expect(first.ok).toBe(true);
  expect(auth.redeem(token, "127.0.0.1")).toEqual({ ok: false, why: "invalid" });
  const { cookie, key } = first as { cookie: string; key: string };
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const session = auth.session(cookie)!;
  expect(auth.keyed(session, key)).toBe(true);
  for (const wrong of [undefined, "", cookie, key.slice(1), session.key]) expect(auth.keyed(session, wrong)).toBe(false);
  expect(auth.session("not-a-cookie")).toBeUndefined();

  const late = auth.mint().token;
  now += 11 * 60_000;
  expect(auth.redeem(late, "127.0.0.1")).toEqual({ ok: false, why: "invalid" });

  const unused = auth.mint().token;
  expect(auth.revoke()).toBe(1);
  expect(auth.session(cookie)).toBeUndefined();
  expect(auth.redeem(unused, "127.0.0.1").ok).toBe(false);
});

test("bad sign-in attempts over 10 a minute from one address are refused; other addresses and a valid token are not", () => {
  let now = 0;
  const auth = new WebAuth(() => now);
  for (let i = 0; i < 10; i++) expect(auth.redeem(`guess-${i}`, "127.0.0.1")).toEqual({ ok: false, why: "invalid" });
  expect(auth.redeem("guess-10", "127.0.0.1")).toEqual({ ok: false, why: "rate" });
  expect(auth.redeem("guess-0", "127.0.0.2")).toEqual({ ok: false, why: "invalid" });
  expect(auth.redeem(auth.mint().token, "127.0.0.1").ok).toBe(true); // the owner's link, mid-flood
  now += 61_000;
  expect(auth.redeem("guess-11", "127.0.0.1")).toEqual({ ok: false, why: "invalid" });
  // The failures kept are bounded, however many addresses try.
  for (let i = 0; i < 5000; i++) auth.redeem("x", `10.0.${i >> 8}.${i & 255}`);
  expect((auth as unknown as { failures: Map<string, number[]> }).failures.size).toBeLessThanOrEqual(1024);
});

test("the Host check: the listen address, localhost on loopback, configured names; nothing else", () => {
  const ok = allowedHosts("127.0.0.1", 7390, ["scv.lan"]);
  for (const h of ["127.0.0.1:7390", "localhost:7390", "LOCALHOST:7390", "scv.lan", "scv.lan:443"]) expect(ok(h)).toBe(true);
  for (const h of [undefined, "", "127.0.0.1:7391", "evil.example:7390", "scv.lan.evil.example", "127.0.0.1"]) expect(ok(h)).toBe(false);
  const lan = allowedHosts("192.168.1.5", 7390, []);
  expect(lan("192.168.1.5:7390")).toBe(true);
  expect(lan("localhost:7390")).toBe(false);
});

test("html escapes every value; doctor warns about a listen address other machines reach", () => {
  expect(html`<p>${"<script>x</script>"}</p>`.html).toBe("<p>&lt;script&gt;x&lt;/script&gt;</p>");
  expect(escapeHtml(`"'&`)).toBe("&quot;&#39;&amp;");
  const config = (web_ui: object) => ({ web_ui: WebUiConfig.parse(web_ui) }) as Config;
  expect(checkWebUi(config({}))).toEqual([]);
  expect(checkWebUi(config({ enabled: true }))[0]!.verdict).toBe("ok");
  const warned = checkWebUi(config({ enabled: true, listen: "0.0.0.0:7390" }))[0]!;
  expect(warned.verdict).toBe("warning");
  expect(warned.text).toContain("0.0.0.0:7390");
  expect(() => WebUiConfig.parse({ listen: "7390" })).toThrow("host:port");
});
