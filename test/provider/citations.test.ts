import { describe, expect, test } from "bun:test";
import { withSources } from "../../src/provider/citations";
import { citations, startFakeModel } from "../fake/model-server";
import { client, collect, request, textOf } from "./helpers";

describe("withSources", () => {
  test("lists cited URLs the reply does not contain, once each, in citation order", () => {
    const reply = "Tokyo is big ([metro](https://metro.example/a)).";
    const out = withSources(reply, [
      { url: "https://metro.example/a", title: "Metro" },
      { url: "https://stats.example/b", title: "Stats\nBureau" },
      { url: "https://stats.example/b", title: "Stats again" },
      { url: "https://plain.example/" },
    ]);
    expect(out).toBe(`${reply}\n\nSources:\n- Stats Bureau: https://stats.example/b\n- https://plain.example/`);
  });

  test("returns the reply unchanged when every URL is already linked or there are none", () => {
    expect(withSources("see https://a.example/x", [{ url: "https://a.example/x", title: "A" }])).toBe("see https://a.example/x");
    expect(withSources("nothing", [])).toBe("nothing");
  });

  test("does not add a blank paragraph after a trailing newline", () => {
    expect(withSources("text\n", [{ url: "https://u.example/" }])).toBe("text\n\nSources:\n- https://u.example/");
  });

  test("end to end: hosted search citations from the Responses stream", async () => {
    const fake = await startFakeModel();
    try {
      fake.queue(citations("Answer citing https://one.example/1 inline.", [
        { url: "https://one.example/1", title: "One" },
        { url: "https://two.example/2", title: "Two" },
      ]));
      const events = await collect(client(fake.url, "responses").stream(request({ hostedWebSearch: true })));
      const cited = events.flatMap((e) => (e.type === "citation" ? [{ url: e.url, title: e.title }] : []));
      expect(withSources(textOf(events), cited)).toBe("Answer citing https://one.example/1 inline.\n\nSources:\n- Two: https://two.example/2");
    } finally {
      await fake.close();
    }
  });
});
