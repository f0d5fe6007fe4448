// `scv exec` in a real terminal (tmux) with two MCP servers about to connect: one card lists both, says where
// "always" is kept, and `s` asks for each alone; the one approved with `a` starts and is kept for this workspace.
import { afterAll, afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary } from "../fake/binary";
import { text } from "../fake/model-server";
import { closeAllTerminals, openTerminal, type Terminal } from "../fake/tmux";
import { hostile, serverToml } from "../fake/mcp-servers";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);
const fake = fakeModelForEachTest();
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});
afterAll(closeAllTerminals);

test.skipIf(!needs("tmux"))("two MCP servers: one card; s asks each alone; a on one starts and keeps only it", async () => {
  const h = fakeHome(fake.url);
  const pid = (n: string) => join(h.workspace, `${n}.pid`);
  writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8") + serverToml("alpha", hostile("well", { args: ["--pid", pid("alpha")] })) + serverToml("beta", hostile("well", { args: ["--pid", pid("beta")] })));
  fake.queue(text("one connected"));
  term = openTerminal([requireBinary(), "exec", "hi"], { env: h.env, cwd: h.workspace, width: 100, height: 40 });
  const card = await term.waitFor("[y/N/a/s]");
  expect(card).toContain("Approve mcp.connect?");
  expect(card).toContain("connect to 2 MCP servers:");
  expect(card).toContain("always, kept for this workspace");
  expect(card).toContain("some of them (2,");
  term.type("s");
  await term.waitFor("alpha? [y/N/a]");
  term.type("n");
  await term.waitFor("beta? [y/N/a]");
  term.type("a");
  await term.waitFor("one connected");
  expect(existsSync(pid("beta"))).toBe(true);
  expect(existsSync(pid("alpha"))).toBe(false);
  const grants = JSON.parse(readFileSync(join(h.home, "state", "mcp-approvals.json"), "utf8")).grants;
  expect(grants.map((g: any) => g.server)).toEqual(["beta"]);
  expect(term.screen()).toContain('MCP server "alpha" is not connected: left out when the others were approved');
});
