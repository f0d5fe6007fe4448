// `scv channels login|logout wechat`: the QR login against [channels.wechat] base_url, and forgetting it.
import type { Config } from "../config/schema";
import { WechatChannelConfig } from "../config/schema";

function settings(config: Config) {
  return config.channels.wechat ?? WechatChannelConfig.parse({});
}

export async function login(config: Config, home: string): Promise<void> {
  const wechat = settings(config);
  const { loginWechat, LoginError } = await import("../channels/wechat/login");
  const abort = new AbortController();
  const onInt = () => abort.abort();
  process.once("SIGINT", onInt);
  try {
    await loginWechat({
      scvHome: home,
      account: wechat.account,
      baseUrl: wechat.base_url,
      cdnBaseUrl: wechat.cdn_base_url,
      proxy: wechat.proxy,
      signal: abort.signal,
      io: {
        say: (text) => process.stderr.write(text),
        drawQr: !!process.stdout.isTTY,
        askCode: process.stdin.isTTY ? () => askLine("digits shown on the phone: ") : undefined,
      },
    });
    process.stdout.write(
      `logged in to WeChat; the login is stored (0600) under $SCV_HOME/state/channels/wechat/${wechat.account}/. ` +
        (config.channels.wechat?.enabled
          ? "A running daemon picks it up within seconds.\n"
          : "Add\n  [channels.wechat]\n  enabled = true\nto $SCV_HOME/config.toml and start the daemon (`scv daemon start`).\n"),
    );
  } catch (e) {
    if (abort.signal.aborted) {
      process.stderr.write("scv channels login: cancelled\n");
      process.exitCode = 130;
      return;
    }
    const known = e instanceof LoginError || (e as Error).name === "IlinkError" || (e as Error).name === "IlinkTransportError";
    if (!known) throw e;
    process.stderr.write(`scv channels login: ${(e as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    process.off("SIGINT", onInt);
  }
}

async function askLine(prompt: string): Promise<string | undefined> {
  process.stderr.write(prompt);
  for await (const line of console) return line.trim() || undefined;
  return undefined;
}

export async function logout(config: Config, home: string): Promise<void> {
  const { removeLogin } = await import("../channels/wechat/store");
  const removed = removeLogin(home, settings(config).account);
  process.stdout.write(removed ? "logged out of WeChat: the stored login is removed; a running daemon stops the channel within seconds.\n" : "not logged in to WeChat.\n");
}
