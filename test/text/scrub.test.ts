import { describe, expect, test } from "bun:test";
import { scrubKnown, secretForms } from "../../src/text/scrub";

const KEY = "prov/AbC+dEf=gHi jkl\"x-MARK-123";

/** Every way the key may be echoed, as a test can write them independently of the scrubber. */
const echoes = [
  KEY,
  encodeURIComponent(KEY),
  encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()), // lower-case hex
  new URLSearchParams({ q: KEY }).toString().slice(2),
  JSON.stringify(KEY).slice(1, -1),
  JSON.stringify(KEY).slice(1, -1).replace(/\//g, "\\/"),
];

test("the raw, percent-encoded and JSON-escaped key are all replaced", () => {
  for (const echo of echoes) {
    const out = scrubKnown(`before ${echo} after`, [KEY]);
    expect(out).toBe("before *** after");
  }
});

test("a quote of the key's end, 4 characters or more, is replaced whole; the prefix of a long key too", () => {
  expect(scrubKnown("the key ending in MARK-123 was refused", [KEY])).toBe("the key ending in *** was refused");
  expect(scrubKnown("key …x-MARK-123 refused", [KEY])).toBe("key …*** refused");
  expect(scrubKnown("last four -123.", [KEY])).toBe("last four ***.");
  expect(scrubKnown("starts prov/AbC here", [KEY])).toBe("starts *** here"); // the first 8 characters
  expect(scrubKnown("unrelated 123 text", [KEY])).toBe("unrelated 123 text");
});

test("other secrets are scrubbed in every form but not by their ends; short ones are left alone", () => {
  const other = "hdr/value+secret";
  expect(scrubKnown(`${encodeURIComponent(other)} and cret`, [undefined, other], { partial: false })).toBe("*** and cret");
  expect(scrubKnown("abc", ["abc"])).toBe("abc");
  expect(scrubKnown(`x ${KEY} y`, [KEY], { replacement: "[key]" })).toBe("x [key] y");
});

test("forms are distinct and longest first, so a longer form is never left half-replaced", () => {
  const forms = secretForms(KEY);
  expect(new Set(forms).size).toBe(forms.length);
  for (let i = 1; i < forms.length; i++) expect(forms[i - 1]!.length).toBeGreaterThanOrEqual(forms[i]!.length);
});

test("the key with any mix of its characters percent-encoded, in either hex case, is replaced", () => {
  const key = "sk-SECRETMARK-123";
  const hex = (c: string, lower: boolean) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")[lower ? "toLowerCase" : "toUpperCase"]()}`;
  const mixes = [
    key.replace(/-/g, "%2D"), // every non-alphanumeric character encoded
    key.replace(/-/g, "%2d"),
    [...key].map((c) => hex(c, false)).join(""), // every character
    [...key].map((c, i) => (i % 2 ? hex(c, i % 4 === 1) : c)).join(""), // every other one, mixed case
    "sk-SECRETMARK%2D123", // only some
  ];
  for (const echo of mixes) expect(scrubKnown(`a ${echo} b`, [undefined, key], { partial: false })).toBe("a *** b");
  // A multi-byte character encodes as its UTF-8 bytes; a space may also be `+`.
  expect(scrubKnown("x p%C3%A4ss+word y", [undefined, "päss word"], { partial: false })).toBe("x *** y");
  expect(scrubKnown("sk-SECRETMARK-12 and %2D123", [undefined, key], { partial: false })).toBe("sk-SECRETMARK-12 and %2D123");
});

describe("scrubSecrets: the one detector for what is kept", () => {
  test("well-known key formats are masked, ordinary words are not", async () => {
    const { maskKeyFormats } = await import("../../src/text/scrub");
    const keys = [`sk-ant-api03-${"Ab1".repeat(8)}`, `sk-proj-${"Zz9".repeat(8)}`, `ghp_${"x".repeat(36)}`, `gho_${"Y".repeat(36)}`, "xoxb-123456789012-abc", "AKIAIOSFODNN7EXAMPLE", `AIza${"B".repeat(35)}`];
    for (const k of keys) expect(maskKeyFormats(`token: ${k} end`)).toBe("token: *** end");
    const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----";
    expect(maskKeyFormats(`key:\n${pem}\nafter`)).toBe("key:\n-----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY-----\nafter");
    expect(maskKeyFormats("a risk-assessment-of-the-whole-plan, task-oriented")).toBe("a risk-assessment-of-the-whole-plan, task-oriented");
  });

  test("registered sources join every scrub", async () => {
    const { registerSecretSource, scrubSecrets } = await import("../../src/text/scrub");
    let token: string | undefined;
    registerSecretSource("test/source", () => [token]);
    expect(scrubSecrets("bot token-abcdef123456 here", [])).toBe("bot token-abcdef123456 here");
    token = "token-abcdef123456";
    expect(scrubSecrets("bot token-abcdef123456 here", ["configured-secret-1"])).toBe("bot *** here");
    token = undefined;
  });
});
