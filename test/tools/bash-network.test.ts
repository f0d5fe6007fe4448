// A person's grant for a host the sandbox's egress proxy refused a bash command: the card comes after the call
// (only a person answers it), "allow" lets the same command through once, "always" keeps the host for the
// workspace, a denial leaves it refused. From source, through the protocol server; the stand-in is on loopback.
import { needs } from "../fake/needs";
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startHarness, type Harness } from "../fake/harness";
import { text, toolCalls } from "../fake/model-server";

let h: Harness | undefined;
const servers: { stop(force?: boolean): void }[] = [];
afterEach(async () => {
  await h?.close();
  h?.remove();
  h = undefined;
  for (const s of servers.splice(0)) s.stop(true);
});

test.skipIf(!needs("root"))("a refused host: allowed once, then always for the workspace; a host the person refused is not asked about again", async () => {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => new Response(`hello ${r.headers.get("host")}\n`) });
  servers.push(server);
  const port = server.port as number;
  h = await startHarness({ config: "" });
  const hosts = join(h.home, "hosts");
  writeFileSync(hosts, "127.0.0.1 registry.test other.test third.test\n");
  writeFileSync(join(h.home, "config.toml"), `${readFileSync(join(h.home, "config.toml"), "utf8")}[sandbox.network]\nallow = ["registry.test", "127.0.0.1:${port}"]\nallow_private = true\nhosts_file = "${hosts}"\n`);
  const other = `curl -sS -p http://other.test:${port}/`;
  const third = `curl -sS -p http://third.test:${port}/`;
  for (const command of [other, other, other, other, third, third]) h.fake.queue(toolCalls([{ name: "bash", arguments: { command } }]));
  h.fake.queue(text("done"));
  const sid = await h.start({ auto_approve: true });
  const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "go" });
  const answers: [string, boolean, string | undefined][] = [["other", true, undefined], ["other", true, "workspace"], ["third", false, undefined]];
  const answered = new Set<string>();
  for (const [host, approved, remember] of answers) {
    const asked = await h.waitFor("approval.requested", (p) => !answered.has(p.approval_id), 60_000);
    answered.add(asked.approval_id);
    expect(asked.risk).toBe("network");
    expect(asked.summary).toContain(`let sandboxed commands reach ${host}.test:${port}`);
    await h.request("approval.resolve", { session_id: sid, approval_id: asked.approval_id, approved, ...(remember ? { remember } : {}) });
  }
  await h.waitFor("turn.ended", (p) => p.turn_id === turn_id, 120_000);
  const outs = h.events.filter((e) => e.method === "tool.completed").map((e) => String(e.params.output));
  expect(outs.length).toBe(6);
  expect(outs[0]).toContain(`the sandbox's network proxy refused other.test:${port}`);
  expect(outs[0]).toContain(`a person allowed other.test:${port} once`);
  expect(outs[1]).toContain(`hello other.test:${port}`);
  // Once is once: refused again, and this time answered "always" for the workspace.
  expect(outs[2]).toContain(`refused other.test:${port}`);
  expect(outs[2]).toContain(`a person allowed other.test:${port} for this workspace`);
  expect(outs[3]).toContain(`hello other.test:${port}`);
  expect(outs[4]).toContain(`third.test:${port} stays refused`);
  // A host the person refused is not asked about again in the session.
  expect(outs[5]).toContain(`a person already refused third.test:${port} in this session`);
  expect(h.events.filter((e) => e.method === "approval.requested").length).toBe(3);
  const grants = JSON.parse(readFileSync(join(h.home, "state", "sandbox-network-grants.json"), "utf8"));
  expect(Object.values(grants).flat()).toEqual([`other.test:${port}`]);
}, 180_000);
