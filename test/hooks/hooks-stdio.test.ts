// Hooks seen by a protocol client of the compiled `scv server --stdio`: Notification fires while an approval card
// waits (before anyone answers), PreCompact before session.compact, SessionEnd at session.close — each with its
// documented input; every notification matches the protocol schema (hook.completed included).
import { expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeHome, fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { startStdioServer } from "../fake/stdio-client";
import { until } from "../fake/until";

const fake = fakeModelForFile();

const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

test("Notification fires while an approval waits; PreCompact before a compaction; SessionEnd at close", async () => {
  const h = fakeHome(fake.url);
  const root = dirname(h.home);
  const log = (name: string) => `cat >> ${join(root, name)}; echo >> ${join(root, name)}`;
  // sandbox.auto_run off: the sandboxed `touch` then asks, as a command the guard does not know does.
  appendFileSync(join(h.home, "config.toml"), `
[sandbox]
auto_run = false
[[hooks.Notification]]
command = "${log("notify.jsonl")}"
[[hooks.PreCompact]]
command = "${log("compact.jsonl")}"
[[hooks.SessionEnd]]
command = "${log("end.jsonl")}"
`);
  const s = startStdioServer(h.env, h.workspace);
  try {
    await s.request(1, "initialize", { protocol_version: 3 });
    const { result } = await s.request(2, "session.start", { cwd: h.workspace });
    const sid = result.session_id;
    fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch asked.txt" } }]), text("made it"));
    await s.request(3, "turn.start", { session_id: sid, prompt: "make a file" });
    const asked = await s.waitFor((m) => m.method === "approval.requested");
    // The notifier ran while the card waits: nobody has answered yet.
    await until("the Notification hook", () => read(join(root, "notify.jsonl"))[0]);
    expect(read(join(root, "notify.jsonl"))[0]).toMatchObject({ hook_event_name: "Notification", session_id: sid, notification_type: "permission_prompt", tool_name: "bash", message: "SCV needs your permission to use bash" });
    expect(existsSync(join(h.workspace, "asked.txt"))).toBe(false);
    await s.request(4, "approval.resolve", { session_id: sid, approval_id: asked.params.approval_id, approved: true });
    await s.waitFor((m) => m.method === "turn.ended");
    expect(existsSync(join(h.workspace, "asked.txt"))).toBe(true);
    const notified = await s.waitFor((m) => m.method === "hook.completed" && m.params.event === "Notification");
    expect(notified.params.hooks[0]).toMatchObject({ verdict: "ok", exit_code: 0 });

    fake.queue(text("a summary of the work so far"));
    await s.request(5, "session.compact", { session_id: sid }, 20_000);
    expect(read(join(root, "compact.jsonl"))[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual", reason: "request", session_id: sid });

    await s.request(6, "session.close", { session_id: sid });
    await until("the SessionEnd hook", () => read(join(root, "end.jsonl"))[0]);
    expect(read(join(root, "end.jsonl"))[0]).toMatchObject({ hook_event_name: "SessionEnd", session_id: sid, reason: "other" });
  } finally {
    await s.kill();
  }
}, 30_000);
