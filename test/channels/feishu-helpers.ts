// A daemon bridge whose only channel is Feishu, pointed at the fake Feishu server; every proxy variable points
// at a trap, so a request for a real Feishu host (not on loopback) would show up as a trap connection.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeFeishu } from "../fake/feishu-server";
import type { ProxyTrap } from "../fake/proxy-trap";
import { type Bridge, makeBridge, waitFor } from "./helpers";

export const OWNER = "ou_owner000000000000000000000000";

/** A bridge with `[channels.feishu]` only; the secret comes from FEISHU_TEST_SECRET (app_secret_env). */
export function feishuBridge(modelUrl: string, fake: FakeFeishu, trap: ProxyTrap, opts: { owner?: string | null; secret?: string; extra?: string } = {}): Bridge {
  const b = makeBridge(modelUrl, opts.extra ?? "");
  const file = join(b.home, "config.toml");
  const base = readFileSync(file, "utf8").replace(/\[channels\.dir\][\s\S]*$/, "");
  const owner = opts.owner === null ? "" : `owner_open_id = "${opts.owner ?? OWNER}"\n`;
  writeFileSync(file, `${base}[channels.feishu]\ndomain = "${fake.url}"\napp_id = "${fake.appId}"\napp_secret_env = "FEISHU_TEST_SECRET"\n${owner}`);
  b.env.FEISHU_TEST_SECRET = opts.secret ?? fake.appSecret;
  for (const k of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"]) b.env[k] = trap.url;
  b.env.NO_PROXY = b.env.no_proxy = "127.0.0.1,localhost";
  return b;
}

export async function waitConnected(fake: FakeFeishu, b: Bridge): Promise<void> {
  await waitFor(() => fake.connections() > 0, 15_000, `the long connection; log:\n${b.logText()}`);
}

/** The text of a sent message, whether plain `text` or a `post` of markdown paragraphs. */
export function messageText(m: { msg_type: string; content: any }): string {
  if (m.msg_type === "text") return m.content.text;
  if (m.msg_type === "post") return m.content.zh_cn.content.map((p: any[]) => p.map((e) => e.text).join("")).join("\n\n");
  return "";
}
