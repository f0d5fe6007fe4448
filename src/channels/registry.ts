// The adapters for the channels configured in [channels.*]: adding a platform is one more entry here.
import { resolve } from "node:path";
import type { Config } from "../config/schema";
import type { ChannelAdapter } from "./core/adapter";
import { DirAdapter } from "./dir/adapter";
import { WechatAdapter } from "./wechat/adapter";
import { FeishuAdapter } from "./feishu/adapter";
import { WebAdapter } from "./web/adapter";
import { TelegramAdapter } from "./telegram/adapter";

/** A relative `path` is taken from $SCV_HOME, whatever directory the daemon was started in. */
export function configuredAdapters(config: Config, scvHome: string, env: NodeJS.ProcessEnv = process.env): ChannelAdapter[] {
  const adapters: ChannelAdapter[] = [];
  const dir = config.channels.dir;
  if (dir) adapters.push(new DirAdapter({ path: resolve(scvHome, dir.path), owner: dir.owner, account: dir.account }));
  const wechat = config.channels.wechat;
  if (wechat?.enabled) {
    adapters.push(
      new WechatAdapter({
        scvHome,
        account: wechat.account,
        baseUrl: wechat.base_url,
        cdnBaseUrl: wechat.cdn_base_url,
        proxy: wechat.proxy,
        replyBudget: wechat.reply_budget,
        replyWindowMs: wechat.reply_window_hours * 3_600_000,
        sendMaxAttempts: config.channels.send_max_attempts,
      }),
    );
  }
  const feishu = config.channels.feishu;
  if (feishu?.enabled) adapters.push(new FeishuAdapter(feishu, scvHome, env));
  const telegram = config.channels.telegram;
  if (telegram?.enabled) adapters.push(new TelegramAdapter(telegram, scvHome, env));
  if (config.web_ui.enabled) adapters.push(new WebAdapter({ autoApprove: config.web_ui.auto_approve }));
  return adapters;
}
