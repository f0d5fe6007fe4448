// The model client starts connecting to its endpoint before the first request (server.ts calls it when a
// session opens), so a remote endpoint's handshake overlaps the wait for the first prompt.
import { afterEach, expect, test } from "bun:test";
import { createModelClient } from "../../src/provider/client";
import { startFakeModel, text } from "../fake/model-server";
import { collect, profile, request } from "./helpers";

/** A plain TCP listener on 127.0.0.1 that counts the connections it accepts. */
function listener() {
  let accepted = 0;
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: () => void accepted++, data() {} } });
  return { url: `http://127.0.0.1:${server.port}/v1`, accepted: () => accepted, stop: () => server.stop(true) };
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await Bun.sleep(10);
  return check();
}

test("preconnect opens a connection to the endpoint before any request", async () => {
  const l = listener();
  stops.push(l.stop);
  createModelClient(profile(l.url, "responses"), { version: "t" }).preconnect!();
  expect(await until(() => l.accepted() > 0, 20_000)).toBe(true);
});

test("a profile with a proxy, or a client with an injected fetch, does not preconnect", async () => {
  const l = listener();
  stops.push(l.stop);
  createModelClient(profile(l.url, "responses", { proxy: "http://127.0.0.1:9/" }), { version: "t" }).preconnect!();
  createModelClient(profile(l.url, "responses"), { version: "t", fetch: (() => Promise.reject(new Error("no"))) as unknown as typeof fetch }).preconnect!();
  expect(await until(() => l.accepted() > 0, 300)).toBe(false);
});

test("the first request after a preconnect goes through as usual", async () => {
  const fake = await startFakeModel();
  stops.push(() => void fake.close());
  fake.queue(text("hello"));
  const client = createModelClient(profile(fake.url, "responses"), { version: "t" });
  client.preconnect!();
  const events = await collect(client.stream(request()));
  expect(events.at(-1)).toMatchObject({ type: "end", status: "completed" });
  expect(fake.requests.length).toBe(1);
});
