// URL policy and address classification, judged without connecting anywhere.
import { describe, expect, test } from "bun:test";
import { bareHost, classifyAddress, NetError, parseTargetUrl } from "../../src/net/policy";

/** Classifies the host a raw URL canonicalises to, as the connector does. */
function verdictOf(raw: string) {
  return classifyAddress(bareHost(parseTargetUrl(raw)));
}

describe("parseTargetUrl", () => {
  test("accepts http and https", () => {
    expect(parseTargetUrl("https://docs.rs/serde/").hostname).toBe("docs.rs");
    expect(parseTargetUrl("http://example.com:8080/x?y=1").port).toBe("8080");
  });

  test.each(["file:///etc/passwd", "ftp://example.com/", "gopher://example.com/", "javascript:alert(1)", "data:text/plain,hi", "dict://x/"])(
    "refuses scheme of %s",
    (raw) => {
      expect(() => parseTargetUrl(raw)).toThrow(/only http:\/\/ and https:\/\/ URLs/);
    },
  );

  test.each(["http://user@example.com/", "https://user:pw@example.com/", "http://:pw@example.com/", "http://169.254.169.254%2f@evil.com/", "http://1.1.1.1 &@2.2.2.2# @3.3.3.3/"])(
    "refuses embedded credentials in %s",
    (raw) => {
      expect(() => parseTargetUrl(raw)).toThrow(/embedded credentials/);
    },
  );

  test("refuses what is no URL, with a hint", () => {
    expect(() => parseTargetUrl("not a url")).toThrow(NetError);
    expect(() => parseTargetUrl("http://256.0.0.1/")).toThrow(/not a valid URL/);
    expect(() => parseTargetUrl("http://4294967296/")).toThrow(/not a valid URL/);
  });

  test("resolves a relative redirect target against the current URL", () => {
    expect(parseTargetUrl("/next?a=1", new URL("https://site.test:8443/a/b")).href).toBe("https://site.test:8443/next?a=1");
  });

  test("normalises the host: case, trailing dot, brackets", () => {
    expect(bareHost(parseTargetUrl("http://EXAMPLE.com./"))).toBe("example.com");
    expect(bareHost(parseTargetUrl("http://[::FFFF:127.0.0.1]/"))).toBe("::ffff:7f00:1");
  });
});

describe("classifyAddress: refused IPv4 ranges", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.254", "CGNAT"],
    ["100.100.100.200", "CGNAT"], // Alibaba metadata
    ["169.254.169.254", "link-local"], // AWS/GCP/Azure metadata
    ["169.254.0.1", "link-local"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["192.0.0.192", "reserved"], // Oracle metadata
    ["192.0.2.1", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.1", "benchmarking"],
    ["192.88.99.1", "reserved"],
  ])("%s is refused (%s)", (address, label) => {
    const v = classifyAddress(address);
    expect(v.allowed).toBe(false);
    if (!v.allowed) expect(v.range).toContain(label);
  });

  test("refusals name the range", () => {
    expect(classifyAddress("100.64.0.1")).toEqual({ allowed: false, range: expect.stringContaining("CGNAT") });
    expect(classifyAddress("169.254.169.254")).toEqual({ allowed: false, range: expect.stringContaining("metadata") });
    expect(classifyAddress("10.0.0.1")).toEqual({ allowed: false, range: "private" });
  });
});

describe("numeric, hex, octal and short IPv4 forms canonicalise to the same refusal", () => {
  test.each([
    ["http://127.1/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://0x7f000001/", "127.0.0.1"],
    ["http://017700000001/", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://127.000.000.001/", "127.0.0.1"],
    ["http://１２７.０.０.１/", "127.0.0.1"],
    ["http://127。0。0。1/", "127.0.0.1"],
    ["http://%31%32%37%2e%30%2e%30%2e%31/", "127.0.0.1"],
    ["http://127.0.0.1./", "127.0.0.1"],
    ["http://0/", "0.0.0.0"],
    ["http://0x0/", "0.0.0.0"],
    ["http://0xa.0.0.1/", "10.0.0.1"],
    ["http://012.0.0.1/", "10.0.0.1"],
    ["http://167772161/", "10.0.0.1"],
    ["http://10.1/", "10.0.0.1"],
    ["http://0xac100001/", "172.16.0.1"],
    ["http://0xc0a80001/", "192.168.0.1"],
    ["http://3232235521/", "192.168.0.1"],
    ["http://192.168.1/", "192.168.0.1"],
    ["http://0x64400001/", "100.64.0.1"],
    ["http://0xa9fea9fe/", "169.254.169.254"],
    ["http://2852039166/", "169.254.169.254"],
    ["http://0251.0376.0251.0376/", "169.254.169.254"],
    ["http://169.254.43518/", "169.254.169.254"],
    ["http://0xe0000001/", "224.0.0.1"],
    ["http://4294967295/", "255.255.255.255"],
    ["http://0xc6120001/", "198.18.0.1"],
    ["http://0xcb007101/", "203.0.113.1"],
  ])("%s -> %s refused", (raw, canonical) => {
    expect(bareHost(parseTargetUrl(raw))).toBe(canonical);
    expect(verdictOf(raw).allowed).toBe(false);
  });
});

describe("IPv6 forms of each refused range", () => {
  test.each([
    ["http://[::]/", "unspecified"],
    ["http://[::1]/", "loopback"],
    ["http://[0:0:0:0:0:0:0:1]/", "loopback"],
    ["http://[000:0:0000::01]/", "loopback"],
    ["http://[fc00::1]/", "unique-local"],
    ["http://[fd00:ec2::254]/", "unique-local"], // AWS IPv6 metadata
    ["http://[fe80::1]/", "link-local"],
    ["http://[febf:ffff::1]/", "link-local"],
    ["http://[fec0::1]/", "site-local"],
    ["http://[ff02::1]/", "multicast"],
    ["http://[2001:db8::1]/", "reserved"],
    ["http://[2001:2::1]/", "benchmarking"],
    ["http://[100::1]/", "discard"],
    ["http://[3fff::1]/", "reserved"],
    ["http://[5f00::1]/", "segmentRouting"],
    ["http://[4000::1]/", "outside global unicast"],
    ["http://[::ffff:127.0.0.1]/", "IPv4-mapped"],
    ["http://[::ffff:7f00:1]/", "IPv4-mapped"],
    ["http://[::fFFf:127.0.0.1]/", "IPv4-mapped"],
    ["http://[::ffff:10.0.0.1]/", "IPv4-mapped"],
    ["http://[::ffff:169.254.169.254]/", "IPv4-mapped"],
    ["http://[::ffff:100.64.0.1]/", "IPv4-mapped"],
    ["http://[::ffff:0:7f00:1]/", "IPv4-translated"],
    ["http://[::127.0.0.1]/", "IPv4-compatible"],
    ["http://[::7f00:1]/", "IPv4-compatible"],
    ["http://[::a00:1]/", "IPv4-compatible"],
    ["http://[::8.8.8.8]/", "IPv4-compatible"],
    ["http://[64:ff9b::127.0.0.1]/", "NAT64"],
    ["http://[64:ff9b::a9fe:a9fe]/", "NAT64"],
    ["http://[64:ff9b::c0a8:101]/", "NAT64"],
    ["http://[64:ff9b:1::a00:1]/", "local-use NAT64"],
    ["http://[2002:7f00:1::]/", "6to4"],
    ["http://[2002:a9fe:a9fe::1]/", "6to4"],
    ["http://[2002:c0a8:101::]/", "6to4"],
    // Teredo: server 10.0.0.1 in the clear; and client 127.0.0.1 stored inverted (80ff:fffe).
    ["http://[2001:0:a00:1::]/", "Teredo server"],
    ["http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Teredo client"],
  ])("%s is refused (%s)", (raw, label) => {
    const v = verdictOf(raw);
    expect(v.allowed).toBe(false);
    if (!v.allowed) expect(v.range).toContain(label);
  });
});

describe("public addresses are allowed", () => {
  test.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.32.0.1", // just outside 172.16/12
    "100.128.0.1", // just outside 100.64/10
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8", // mapped public
    "64:ff9b::808:808", // NAT64 of a public address (DNS64 networks)
    "2002:808:808::1", // 6to4 of a public address
    "2001:0:4136:e378:8000:63bf:f7f7:fbfb", // Teredo: server 65.54.227.120, client 8.8.4.4
  ])("%s", (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true });
  });

  test("garbage is refused, not allowed", () => {
    expect(classifyAddress("example.com").allowed).toBe(false);
    expect(classifyAddress("127.1").allowed).toBe(false);
  });
});

describe("every refused IPv4 range, in every numeric form and every IPv6 embedding", () => {
  // One address from each refused IPv4 range (ipaddr.js names and the brief's list).
  const REFUSED_V4 = [
    "0.0.0.0", "127.0.0.1", "10.0.0.1", "172.16.0.1", "192.168.0.1", "100.64.0.1", "169.254.169.254", "224.0.0.1",
    "240.0.0.1", "255.255.255.255", "192.0.0.192", "192.0.2.1", "198.51.100.1", "203.0.113.1", "198.18.0.1",
    "198.19.255.254", "192.88.99.1", "192.175.48.1", "192.52.193.1",
  ];
  const octets = (a: string) => a.split(".").map(Number) as [number, number, number, number];
  const group = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);

  /** The inet_aton spellings WHATWG URL parsing accepts for one address. */
  function numericForms(a: string): string[] {
    const [b0, b1, b2, b3] = octets(a);
    const n = b0 * 2 ** 24 + b1 * 2 ** 16 + b2 * 2 ** 8 + b3;
    return [
      String(n), // 2130706433
      `0x${n.toString(16)}`, // 0x7f000001
      `0${n.toString(8)}`, // 017700000001
      [b0, b1, b2, b3].map((b) => `0${b.toString(8)}`).join("."), // 0177.00.00.01
      [b0, b1, b2, b3].map((b) => `0x${b.toString(16)}`).join("."), // 0x7f.0x0.0x0.0x1
      `${b0}.${b1 * 65536 + b2 * 256 + b3}`, // 127.1
      `${b0}.${b1}.${b2 * 256 + b3}`, // 127.0.1
    ];
  }

  /** The IPv6 forms that carry the address: mapped, compatible, NAT64, 6to4, Teredo server and client. */
  function embeddings(a: string): string[] {
    const [b0, b1, b2, b3] = octets(a);
    return [
      `::ffff:${a}`,
      `::ffff:${group(b0, b1)}:${group(b2, b3)}`,
      `::${a}`,
      `64:ff9b::${a}`,
      `2002:${group(b0, b1)}:${group(b2, b3)}::1`,
      `2001:0:${group(b0, b1)}:${group(b2, b3)}::1`,
      `2001:0:4136:e378:8000:63bf:${group(b0 ^ 0xff, b1 ^ 0xff)}:${group(b2 ^ 0xff, b3 ^ 0xff)}`,
    ];
  }

  test.each(REFUSED_V4)("%s", (address) => {
    expect(classifyAddress(address).allowed).toBe(false);
    for (const form of numericForms(address)) {
      expect([form, bareHost(parseTargetUrl(`http://${form}/`))]).toEqual([form, address]);
      expect([form, verdictOf(`http://${form}/`).allowed]).toEqual([form, false]);
    }
    for (const form of embeddings(address)) {
      expect([form, verdictOf(`http://[${form}]:8080/`).allowed]).toEqual([form, false]);
    }
  });

  test("the same forms of a public address are allowed where they embed it faithfully", () => {
    for (const form of numericForms("8.8.4.4")) expect(verdictOf(`http://${form}/`)).toEqual({ allowed: true });
    // Compatible ::a.b.c.d is refused whatever it embeds; the others follow the embedded address. (The
    // Teredo server form above ends in ::1, an inverted client address 255.255.255.254, so it stays refused.)
    const [mapped, mappedHex, compatible, nat64, sixToFour, teredoServer, teredoClient] = embeddings("8.8.4.4");
    for (const form of [mapped!, mappedHex!, nat64!, sixToFour!, teredoClient!]) expect([form, classifyAddress(form).allowed]).toEqual([form, true]);
    expect(classifyAddress(compatible!).allowed).toBe(false);
    expect(classifyAddress(teredoServer!)).toEqual({ allowed: false, range: expect.stringContaining("Teredo client") });
  });
});

describe("IPv6 text with a dotted IPv4 tail, as getaddrinfo prints it, is read by its real prefix", () => {
  // ipaddr.js alone parses any dotted tail as ::ffff:a.b.c.d, which would let ::8.8.4.4 pass as mapped-public.
  test.each([
    ["::8.8.4.4", "IPv4-compatible"],
    ["::127.0.0.1", "IPv4-compatible"],
    ["::ffff:0:8.8.4.4", "IPv4-translated"],
    ["64:ff9b::10.0.0.1", "NAT64 embedding 10.0.0.1"],
    ["fe80::1.2.3.4%eth0", "link-local"],
  ])("%s is refused (%s)", (address, label) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, range: expect.stringContaining(label) });
  });

  test("a dotted tail under a public prefix is judged like its hex form", () => {
    expect(classifyAddress("64:ff9b::8.8.4.4")).toEqual({ allowed: true });
    expect(classifyAddress("::ffff:8.8.4.4")).toEqual({ allowed: true });
  });
});
