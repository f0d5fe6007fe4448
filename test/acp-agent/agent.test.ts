// `scv acp` through the compiled binary, driven by the official ACP SDK's client side against the scripted model.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { type Editor, initialize, startEditor } from "../fake/acp-editor";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const editors: Editor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.stop()));
  fake.clear();
});

function editor(opts: Partial<Parameters<typeof startEditor>[0]> & { home?: ReturnType<typeof fakeHome> } = {}) {
  const home = opts.home ?? fakeHome(fake.url);
  const e = startEditor({ env: home.env, cwd: home.workspace, ...opts });
  editors.push(e);
  return { e, ...home };
}

describe("scv acp", () => {
  test("initialize states SCV's capabilities; session/new and a prompt stream the reply and end the turn", async () => {
    const { e, workspace } = editor();
    const init = await initialize(e);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities.loadSession).toBe(true);
    expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {} });
    expect(init.agentCapabilities.promptCapabilities).toMatchObject({ image: false, embeddedContext: true });
    expect(init.authMethods).toEqual([]);
    const s = await e.request("session/new", { cwd: workspace, mcpServers: [] });
    expect(s.sessionId).toMatch(/./);
    expect(s.modes.currentModeId).toBe("ask");
    fake.queue(text("Hello from SCV.", { reasoning: "thinking it over" }));
    const r = await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "say hello" }] });
    expect(r.stopReason).toBe("end_turn");
    const chunks = e.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk").map((u) => u.update.content.text).join("");
    expect(chunks).toBe("Hello from SCV.");
    expect(fake.requests.at(-1)!.body.input.some((i: any) => JSON.stringify(i).includes("say hello"))).toBe(true);
  });
});
