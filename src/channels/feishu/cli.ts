// `scv channels login|logout feishu` from the CLI's parsed options: the channel's config (with --account),
// then the flows in login.ts.
import type { Io } from "../../accounts/login-io";
import { loadConfig, scvHome } from "../../config/load";
import { FeishuChannelConfig } from "../../config/schema";
import { feishuLogin, feishuLogout } from "./login";

type Options = Record<string, string | true>;

function channelConfig(options: Options) {
  const configured = loadConfig().config.channels.feishu ?? {};
  const parsed = FeishuChannelConfig.safeParse({ ...configured, ...(typeof options.account === "string" ? { account: options.account } : {}) });
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join(".") === "account" ? "--account" : i.path.join(".")}: ${i.message}`).join("; "));
  return parsed.data;
}

export async function login(options: Options, io: Io): Promise<void> {
  const brand = options.brand;
  if (brand !== undefined && brand !== "feishu" && brand !== "lark") throw new Error("scv channels login: --brand is feishu or lark");
  await feishuLogin({
    scvHome: scvHome(),
    config: channelConfig(options),
    ...(typeof options["app-id"] === "string" ? { appId: options["app-id"] } : {}),
    ...(brand ? { brand } : {}),
    io,
  });
}

export async function logout(options: Options, io: Io): Promise<void> {
  feishuLogout(scvHome(), channelConfig(options), io);
}
