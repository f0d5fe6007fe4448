// What `scv channels list|status` learn from each adapter, without naming platforms in the CLI.
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configuredAdapters } from "../../src/channels/registry";
import { loadConfig } from "../../src/config/load";

test("a dir channel says where its files are (a relative path from SCV_HOME); WeChat says its owner comes from a login", () => {
  const home = mkdtempSync(join(tmpdir(), "scv-registry-"));
  writeFileSync(join(home, "config.toml"), '[channels.dir]\npath = "chat"\nowner = "me"\n\n[channels.wechat]\n');
  const { config } = loadConfig({ env: { SCV_HOME: home, HOME: home } });
  const [dir, wechat] = configuredAdapters(config, home, {});
  expect(dir).toMatchObject({ kind: "dir", owner: "me", where: `path ${join(home, "chat")}` });
  expect(dir!.loginCommand).toBeUndefined();
  expect(wechat).toMatchObject({ kind: "wechat", owner: "", loginCommand: "scv channels login wechat" });
  expect(wechat!.where).toBeUndefined();
});
