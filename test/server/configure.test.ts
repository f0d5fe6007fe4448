// session.configure over the protocol: the switch takes effect at the next turn of the same session, is recorded so
// a resume keeps it, and is refused when the history holds encrypted reasoning the new endpoint cannot read.
import { afterEach, expect, test } from "bun:test";
import { type Harness, startHarness } from "../fake/harness";
import { text } from "../fake/model-server";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

// Two more profiles; neither gets a request in these tests (127.0.0.1:9 has nobody listening).
const OTHER_PROFILES = `[providers.elsewhere]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "far-model"\n[providers.chatty]\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "chat"\nmodel = "chat-model"\n`;

test("a new model and effort apply from the next turn, with the history carried, and a resume keeps them", async () => {
  h = await startHarness({ config: OTHER_PROFILES });
  h.fake.queue(text("first answer"), text("second answer"), text("after resume"));
  const sid = await h.start();
  await h.turn(sid, "first question");
  const now = await h.request("session.configure", { session_id: sid, model: "bigger-model", reasoning_effort: "high" });
  expect(now).toMatchObject({ provider: "fake", model: "bigger-model", wire_api: "responses", reasoning_effort: "high" });
  await h.turn(sid, "second question");
  const second = h.fake.requests.at(-1)!.body;
  expect(second.model).toBe("bigger-model");
  expect(second.reasoning.effort).toBe("high");
  expect(JSON.stringify(second.input)).toContain("first answer");
  // Nothing named: the settings in force, unchanged.
  expect(await h.request("session.configure", { session_id: sid })).toMatchObject({ model: "bigger-model", reasoning_effort: "high" });

  await h.request("session.close", { session_id: sid });
  const resumed = await h.request("session.resume", { session_id: sid });
  expect(resumed.model).toBe("bigger-model");
  await h.turn(sid, "third question");
  expect(h.fake.requests.at(-1)!.body).toMatchObject({ model: "bigger-model", reasoning: { effort: "high" } });
});

test("an unknown profile is refused naming the ones there are", async () => {
  h = await startHarness({ config: OTHER_PROFILES });
  const sid = await h.start();
  await expect(h.request("session.configure", { session_id: sid, provider: "nope" })).rejects.toThrow('no provider profile "nope"; the profiles are "fake", "elsewhere", "chatty"');
  await expect(h.request("session.configure", { session_id: sid, provider: "constructor" })).rejects.toThrow('no provider profile "constructor"');
});

test("encrypted reasoning cannot go to another endpoint: refused with the reason; a Chat profile leaves it out and says so", async () => {
  h = await startHarness({ config: OTHER_PROFILES });
  h.fake.queue(text("thought about it", { reasoning: true }));
  const sid = await h.start();
  await h.turn(sid, "think");
  await expect(h.request("session.configure", { session_id: sid, provider: "elsewhere" })).rejects.toThrow(/cannot carry this conversation to "elsewhere": its history holds encrypted reasoning/);
  expect(await h.request("session.configure", { session_id: sid })).toMatchObject({ provider: "fake", model: "fake-model" }); // unchanged
  const chat = await h.request("session.configure", { session_id: sid, provider: "chatty" });
  expect(chat).toMatchObject({ provider: "chatty", model: "chat-model", wire_api: "chat" });
  expect(chat.notices).toEqual(["the model's earlier reasoning has no form in the Chat API and is left out; the conversation itself is carried"]);
});
