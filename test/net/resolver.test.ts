// The checking resolver with an injected lookup: nothing here connects or asks real DNS.
import { describe, expect, test } from "bun:test";
import { NetError } from "../../src/net/policy";
import { resolveChecked } from "../../src/net/resolver";
import { allowPort, noLookup, tableLookup } from "./helpers";

const url = (s: string) => new URL(s);

describe("resolveChecked", () => {
  test("a name with only public addresses passes, resolved once, all addresses kept", async () => {
    const lookup = tableLookup({ "docs.test": ["93.184.216.34", "2606:2800:220:1::248"] });
    const t = await resolveChecked(url("https://docs.test/x"), { lookup });
    expect(t).toEqual({ host: "docs.test", port: 443, addresses: ["93.184.216.34", "2606:2800:220:1::248"] });
    expect(lookup.calls.get("docs.test")).toBe(1);
  });

  test("a name with one public and one private address is refused, naming the private one", async () => {
    const lookup = tableLookup({ "mixed.test": ["93.184.216.34", "10.0.0.5"] });
    const err = await resolveChecked(url("http://mixed.test/"), { lookup }).catch((e) => e);
    expect(err).toBeInstanceOf(NetError);
    expect(err.message).toContain("mixed.test resolves to 10.0.0.5");
    expect(err.message).toContain("private");
  });

  test.each([
    ["localhost", "127.0.0.1"],
    ["metadata.google.internal", "169.254.169.254"],
    ["cgnat.test", "100.64.1.1"],
    ["v6local.test", "::1"],
    ["ula.test", "fd00:ec2::254"],
    ["mapped.test", "::ffff:127.0.0.1"],
    ["nat64.test", "64:ff9b::a9fe:a9fe"],
    ["compat.test", "::8.8.4.4"], // IPv4-compatible, printed with a dotted tail
    ["compat-loop.test", "::127.0.0.1"],
  ])("%s -> %s is refused", async (name, address) => {
    const lookup = tableLookup({ [name]: [address] });
    await expect(resolveChecked(url(`http://${name}/`), { lookup })).rejects.toThrow(/refused/);
  });

  test("DNS failure fails closed", async () => {
    const lookup = tableLookup({});
    await expect(resolveChecked(url("http://nowhere.test/"), { lookup })).rejects.toThrow(/could not resolve nowhere.test \(ENOTFOUND\)/);
  });

  test("an empty answer fails closed", async () => {
    const lookup = async () => [];
    await expect(resolveChecked(url("http://empty.test/"), { lookup })).rejects.toThrow(/no addresses/);
  });

  test("IP literals are checked without a lookup", async () => {
    await expect(resolveChecked(url("http://169.254.169.254/latest/meta-data/"), { lookup: noLookup })).rejects.toThrow(/169.254.169.254/);
    await expect(resolveChecked(url("http://[::ffff:a9fe:a9fe]/"), { lookup: noLookup })).rejects.toThrow(/refused/);
    expect((await resolveChecked(url("http://8.8.8.8/"), { lookup: noLookup })).addresses).toEqual(["8.8.8.8"]);
  });

  test("the port-aware exception admits exactly one loopback port", async () => {
    const allow = allowPort(4321);
    expect((await resolveChecked(url("http://127.0.0.1:4321/"), { allow, lookup: noLookup })).addresses).toEqual(["127.0.0.1"]);
    await expect(resolveChecked(url("http://127.0.0.1:4322/"), { allow, lookup: noLookup })).rejects.toThrow(/loopback/);
    await expect(resolveChecked(url("http://127.0.0.2:4321/"), { allow, lookup: noLookup })).rejects.toThrow(/loopback/);
    await expect(resolveChecked(url("http://10.0.0.1:4321/"), { allow, lookup: noLookup })).rejects.toThrow(/private/);
  });

  test("web.allow_private_addresses lifts the address check", async () => {
    const lookup = tableLookup({ "intranet.test": ["10.1.1.1"] });
    expect((await resolveChecked(url("http://intranet.test/"), { lookup, allowPrivate: true })).addresses).toEqual(["10.1.1.1"]);
  });

  test("each call resolves again: a rebinding resolver cannot turn an earlier check into a later pass", async () => {
    let n = 0;
    const lookup = async () => [{ address: n++ === 0 ? "93.184.216.34" : "127.0.0.1", family: 4 as const }];
    expect((await resolveChecked(url("http://rebind.test/"), { lookup })).addresses).toEqual(["93.184.216.34"]);
    await expect(resolveChecked(url("http://rebind.test/"), { lookup })).rejects.toThrow(/127.0.0.1/);
  });
});
