// "Always" for an MCP connection: kept per workspace, or for every workspace, and bound to the launch.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVERY_WORKSPACE, isRemembered, remember } from "../../src/mcp/remembered";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});
const home = () => {
  const h = mkdtempSync(join(tmpdir(), "scv-mcp-remembered-"));
  homes.push(h);
  return h;
};

test("a workspace grant holds only there and only for the same launch; an every-workspace grant holds everywhere", () => {
  const h = home();
  remember(h, { workspace: "/ws/a", server: "gh", fingerprint: "f1" });
  expect(isRemembered(h, { workspace: "/ws/a", server: "gh", fingerprint: "f1" })).toBe(true);
  expect(isRemembered(h, { workspace: "/ws/b", server: "gh", fingerprint: "f1" })).toBe(false);
  expect(isRemembered(h, { workspace: "/ws/a", server: "gh", fingerprint: "f2" })).toBe(false); // the command line changed
  remember(h, { workspace: EVERY_WORKSPACE, server: "docs", fingerprint: "d1" });
  expect(isRemembered(h, { workspace: "/ws/b", server: "docs", fingerprint: "d1" })).toBe(true);
  expect(statSync(join(h, "state", "mcp-approvals.json")).mode & 0o777).toBe(0o600);
});
