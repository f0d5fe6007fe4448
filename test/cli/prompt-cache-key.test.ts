// The prompt-cache key (issue 42): every model request of a session carries the same `prompt_cache_key`, a
// resume keeps it, another session has its own; a profile can turn it off, and an endpoint that refuses the
// field with a 400 gets the request again without it, and no more of it for the session.
import { afterAll, expect, test } from "bun:test";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { startFakeModel, text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const keys = () => fake.requests.map((r) => r.body.prompt_cache_key);

test("the same key on every request of a session and across a resume; another session has another", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.requests.length = 0;
  fake.queue(toolCalls([{ name: "read", arguments: { path: "none.txt" } }]), text("first"));
  expect((await runBinary(["exec", "--yes", "look"], env, workspace)).code).toBe(0);
  fake.queue(text("again"));
  expect((await runBinary(["exec", "--continue", "once more"], env, workspace)).code).toBe(0);
  fake.queue(text("other"));
  expect((await runBinary(["exec", "a new session"], env, workspace)).code).toBe(0);
  const [a, b, resumed, other] = keys();
  expect(a).toMatch(/^scv-s-[0-9a-f]+$/);
  expect([b, resumed]).toEqual([a, a]);
  expect(other).toMatch(/^scv-s-[0-9a-f]+$/);
  expect(other).not.toBe(a);
});

test("Chat Completions carries it too; prompt_cache_key = false in the profile leaves it out", async () => {
  const chat = fakeHome(fake.url, 'wire_api = "chat"\n');
  fake.requests.length = 0;
  fake.queue(text("hi"));
  expect((await runBinary(["exec", "hi"], chat.env, chat.workspace)).code).toBe(0);
  expect(fake.requests[0]!.path).toEndWith("/chat/completions");
  expect(keys()[0]).toMatch(/^scv-s-/);
  const off = fakeHome(fake.url, "prompt_cache_key = false\n");
  fake.requests.length = 0;
  fake.queue(text("hi"));
  expect((await runBinary(["exec", "hi"], off.env, off.workspace)).code).toBe(0);
  expect(fake.requests[0]!.body).not.toHaveProperty("prompt_cache_key");
});

const refusing = await startFakeModel({ rejectFields: ["prompt_cache_key"] });
afterAll(() => refusing.close());

test("an endpoint that refuses the field is asked again without it, and not sent it again in the session", async () => {
  const { env, workspace } = fakeHome(refusing.url);
  refusing.queue(toolCalls([{ name: "read", arguments: { path: "none.txt" } }]), text("done"));
  const r = await runBinary(["exec", "--yes", "look"], env, workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("done\n");
  const sent = refusing.requests.map((q) => "prompt_cache_key" in q.body);
  expect(sent).toEqual([true, false, false]);
});
