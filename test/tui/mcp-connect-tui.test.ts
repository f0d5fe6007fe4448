// The TUI's card for MCP servers about to connect, in a real terminal (tmux) with the compiled binary: one card
// lists both servers with a digit each; untick one with its digit, `a` approves the other "for this workspace"
// (as the card says), only that one starts and only it is kept.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary } from "../fake/binary";
import { text } from "../fake/model-server";
import { hostile, serverToml } from "../fake/mcp-servers";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(90_000);
const fake = fakeModelForEachTest();
let pane: Terminal | undefined;
afterEach(() => {
  pane?.close();
  pane = undefined;
});

test.skipIf(!needs("tmux"))("one card for two MCP servers: a digit unticks one, a keeps the other for this workspace", async () => {
  const h = fakeHome(fake.url);
  const pid = (n: string) => join(h.workspace, `${n}.pid`);
  writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8") + serverToml("alpha", hostile("well", { args: ["--pid", pid("alpha")] })) + serverToml("beta", hostile("well", { args: ["--pid", pid("beta")] })));
  pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace, width: 100, height: 30 });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(text("all set now"));
  pane.type("hi");
  pane.keys("Enter");
  const card = await pane.waitFor("a always for this workspace");
  expect(card).toContain("1 ☑ alpha");
  expect(card).toContain("2 ☑ beta");
  expect(card).toContain("connect to 2 MCP servers:");
  pane.type("2");
  await pane.waitFor("2 ☐ beta");
  pane.type("a");
  await pane.waitFor("all set now");
  expect(existsSync(pid("alpha"))).toBe(true);
  expect(existsSync(pid("beta"))).toBe(false);
  const tools = (fake.requests.at(-1)!.body.tools as any[]).map((t) => t.name);
  expect(tools).toContain("alpha__hello");
  expect(tools.some((n: string) => n.startsWith("beta__"))).toBe(false);
  const grants = JSON.parse(readFileSync(join(h.home, "state", "mcp-approvals.json"), "utf8")).grants;
  expect(grants.map((g: any) => g.server)).toEqual(["alpha"]);
});
