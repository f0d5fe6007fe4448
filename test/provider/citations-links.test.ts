// withSources decides "already linked" by whole URLs: a cited URL that only prefixes a linked one still
// gets listed, while a URL the reply links in markdown, angle brackets or at the end of a sentence does not.
import { describe, expect, test } from "bun:test";
import { withSources } from "../../src/provider/citations";

const listed = (reply: string, url: string) => withSources(reply, [{ url }]) !== reply;

describe("withSources: whole-URL matching", () => {
  test.each([
    ["see https://a.example/docs/x for more", "https://a.example/"],
    ["see https://a.example/docs/x for more", "https://a.example/docs"],
    ["[x](https://a.example/page?id=12)", "https://a.example/page?id=1"],
    ["https://a.example/x.html.", "https://a.example/x"],
  ])("a cited URL that only starts a longer linked one is listed: %s / %s", (reply, url) => {
    expect(listed(reply, url)).toBe(true);
  });

  test.each([
    ["([site](https://a.example/x?utm_source=openai))", "https://a.example/x?utm_source=openai"],
    ["See https://a.example/x.", "https://a.example/x"],
    ["See https://a.example/x, and more", "https://a.example/x"],
    ["<https://a.example/x>", "https://a.example/x"],
    ["https://a.example/x", "https://a.example/x"],
    ["first https://a.example/xy then https://a.example/x\n", "https://a.example/x"],
    ['<a href="https://a.example/x">', "https://a.example/x"],
  ])("an already linked URL is not listed: %s", (reply, url) => {
    expect(listed(reply, url)).toBe(false);
  });
});
