// [web_ui] auto_approve = true: the web chat approves as the owner's chat on another platform does, no card.
import { afterAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, waitFor } from "../channels/helpers";
import { get, post, signIn, startWebDaemon } from "./helpers";

const fake = fakeModelForFile();
afterAll(cleanupBridges);

test("with auto_approve the web chat's write runs unasked; no approval waits in the page", async () => {
  const d = await startWebDaemon(fake.url, "auto_approve = true");
  const auth = await signIn(d);
  fake.queue(toolCalls([{ name: "write", arguments: { path: "auto.txt", content: "unasked\n", mode: "create" } }]), text("written"));
  expect((await post(d, "/api/chat", { id: "auto-approve-1", text: "write it" }, auth)).status).toBe(202);
  await waitFor(() => existsSync(join(d.workspace, "auto.txt")), 20_000, "the unasked write");
  const live = (await (await get(d, "/api/live", auth)).json()) as { approvals: unknown[] };
  expect(live.approvals).toEqual([]);
  await waitFor(async () => (await (await get(d, "/chat", auth)).text()).includes(">written<"), 20_000, "the reply");
}, 40_000);
