// `scv channels login|logout feishu`. Without --app-id: the PersonalAgent registration (a device flow): a QR
// code to scan in Feishu or Lark, polled until the app exists; its ID, secret and the scanning person's open_id
// (the owner) are stored in $SCV_HOME. With --app-id: an existing self-built app whose secret is read without
// echo, checked, stored, and then the owner is recorded from the first direct message the bot receives.
import { readHidden, readPiped, type Io } from "../../accounts/login-io";
import { FeishuApi, type FeishuCredentials, feishuError, loadSdk, sdkLogger } from "./api";
import { credentialsFile, type FeishuConfig, readStored, removeStored, writeStored } from "./credentials";
import { baseUrlFor } from "./api";

export interface FeishuLoginOptions {
  scvHome: string;
  config: FeishuConfig;
  appId?: string;
  brand?: "feishu" | "lark";
  /** How long to wait for the owner's first message (--app-id). */
  ownerWaitMs?: number;
  io: Io;
}

export class FeishuLoginError extends Error {}

/** The accounts host of the registration flow; a base-URL domain (a test server) serves it itself. */
function accountsUrl(domain: string): string {
  if (domain === "feishu") return "https://accounts.feishu.cn";
  if (domain === "lark") return "https://accounts.larksuite.com";
  return baseUrlFor(domain);
}

async function registration(base: string, params: Record<string, string>): Promise<any> {
  const res = await fetch(`${base}/oauth/v1/app/registration`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new FeishuLoginError(`the registration service answered HTTP ${res.status} without JSON`);
  }
}

async function showQr(io: Io, url: string) {
  const { renderUnicodeCompact } = await import("uqr");
  io.stdout.write(`\n${renderUnicodeCompact(url, { border: 2 })}\n\n`);
  io.stdout.write(`Scan this with the Feishu (or Lark) app to create your personal SCV bot, or open:\n  ${url}\n\n`);
}

/** The device flow; resolves with the new app's credentials and the owner's open_id. */
async function registerPersonalAgent(opts: FeishuLoginOptions): Promise<{ appId: string; appSecret: string; ownerOpenId?: string; domain: string }> {
  const { io } = opts;
  let domain = opts.brand ?? opts.config.domain ?? "feishu";
  let base = accountsUrl(domain);
  const begin = await registration(base, { action: "begin", archetype: "PersonalAgent", auth_method: "client_secret", request_user_info: "open_id" });
  if (!begin.device_code || !begin.verification_uri_complete) throw new FeishuLoginError(`the registration could not start: ${begin.error_description ?? begin.error ?? "no device code"}`);
  const qr = new URL(begin.verification_uri_complete);
  qr.searchParams.set("from", "sdk");
  qr.searchParams.set("tp", "sdk");
  qr.searchParams.set("source", "node-sdk/scv");
  await showQr(io, qr.toString());
  let interval = Math.max(1, Number(begin.interval ?? 5)) * 1000;
  const deadline = Date.now() + Math.max(60, Number(begin.expires_in ?? 600)) * 1000;
  let switched = false;
  io.stderr.write("waiting for the scan ");
  while (Date.now() < deadline) {
    await Bun.sleep(interval);
    io.stderr.write(".");
    const poll = await registration(base, { action: "poll", device_code: begin.device_code });
    if (poll.user_info?.tenant_brand === "lark" && !switched && !/^https?:/.test(domain)) {
      switched = true;
      domain = "lark";
      base = accountsUrl(domain);
      continue;
    }
    if (poll.client_id && poll.client_secret) {
      io.stderr.write(" done\n");
      return { appId: poll.client_id, appSecret: poll.client_secret, ownerOpenId: poll.user_info?.open_id, domain };
    }
    if (poll.error === "authorization_pending") continue;
    if (poll.error === "slow_down") {
      interval += 5000;
      continue;
    }
    io.stderr.write("\n");
    if (poll.error === "access_denied") throw new FeishuLoginError("the registration was declined in the Feishu app");
    if (poll.error === "expired_token") throw new FeishuLoginError("the QR code expired; run `scv channels login feishu` again");
    throw new FeishuLoginError(`the registration failed: ${poll.error_description ?? poll.error ?? "unknown answer"}`);
  }
  io.stderr.write("\n");
  throw new FeishuLoginError("the QR code expired; run `scv channels login feishu` again");
}

/** Checks the credentials by naming the bot; a wrong secret or a disabled bot is a clear error. */
async function verify(creds: FeishuCredentials, io: Io): Promise<string> {
  const sdk = await loadSdk();
  const api = new FeishuApi(sdk, creds, (line) => io.stderr.write(`${line}\n`));
  try {
    return (await api.botInfo()).name;
  } catch (e) {
    throw new FeishuLoginError(feishuError(e, creds.appId).message);
  }
}

/** Waits for the first direct message to the bot over the long connection; its sender is the owner. */
async function awaitOwner(creds: FeishuCredentials, io: Io, waitMs: number): Promise<string | undefined> {
  const sdk = await loadSdk();
  const logger = sdkLogger((line) => io.stderr.write(`\n${line}\n`));
  let found: (openId: string) => void = () => {};
  const owner = new Promise<string>((resolve) => (found = resolve));
  const ws = new sdk.WSClient({ appId: creds.appId, appSecret: creds.appSecret, domain: creds.baseUrl, logger, loggerLevel: sdk.LoggerLevel.warn });
  const dispatcher = new sdk.EventDispatcher({ logger, loggerLevel: sdk.LoggerLevel.warn }).register({
    "im.message.receive_v1": async (data: any) => {
      const openId = data?.sender?.sender_id?.open_id;
      if (data?.message?.chat_type === "p2p" && data?.sender?.sender_type === "user" && openId) found(openId);
    },
  });
  io.stderr.write("Now send the bot a direct message from your own Feishu account, so SCV knows you are its owner ");
  const tick = setInterval(() => io.stderr.write("."), 2000);
  let timer: Timer | undefined;
  try {
    await ws.start({ eventDispatcher: dispatcher });
    const openId = await Promise.race([owner, new Promise<undefined>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    if (openId) await Bun.sleep(300); // the SDK acknowledges the message once the handler returned: let it go out
    return openId;
  } finally {
    clearTimeout(timer);
    clearInterval(tick);
    io.stderr.write("\n");
    ws.close({ force: true });
  }
}

export async function feishuLogin(opts: FeishuLoginOptions): Promise<void> {
  const { io, config, scvHome } = opts;
  const account = config.account;
  if (!opts.appId) {
    const reg = await registerPersonalAgent(opts);
    const file = writeStored(scvHome, account, { app_id: reg.appId, app_secret: reg.appSecret, ...(reg.ownerOpenId ? { owner_open_id: reg.ownerOpenId } : {}), domain: reg.domain });
    io.stdout.write(`Signed in: Feishu app ${reg.appId}${reg.ownerOpenId ? `, owner ${reg.ownerOpenId}` : ""}; stored in ${file} (0600).\n`);
    if (config.domain && reg.domain !== config.domain) io.stdout.write(`This app lives on ${reg.domain}: set domain = "${reg.domain}" in [channels.feishu], or remove domain.\n`);
    if (config.app_id && config.app_id !== reg.appId) io.stdout.write(`[channels.feishu] app_id names ${config.app_id}: remove it to use the new app.\n`);
    io.stdout.write("In the Feishu developer console, grant the bot the im:message scopes and publish a version; then restart the daemon (`scv daemon restart`).\n");
    return;
  }
  const secret = io.stdin.isTTY ? await readHidden(io, `App secret for ${opts.appId}: `) : await readPiped(io.stdin);
  if (!secret) throw new FeishuLoginError("no app secret was given; type it at the prompt or pipe it on stdin");
  const domain = opts.brand ?? config.domain ?? "feishu";
  const creds: FeishuCredentials = { appId: opts.appId, appSecret: secret, baseUrl: baseUrlFor(domain) };
  const bot = await verify(creds, io);
  const previous = readStored(scvHome, account);
  const keepOwner = previous?.app_id === opts.appId ? previous.owner_open_id : undefined;
  const file = writeStored(scvHome, account, { app_id: opts.appId, app_secret: secret, ...(keepOwner ? { owner_open_id: keepOwner } : {}), domain });
  io.stdout.write(`The credentials of ${opts.appId} (bot "${bot}") work; stored in ${file} (0600).\n`);
  if (config.owner_open_id || keepOwner) {
    io.stdout.write(`Owner: ${config.owner_open_id ?? keepOwner}.\n`);
    return;
  }
  const owner = await awaitOwner(creds, io, opts.ownerWaitMs ?? 300_000);
  if (!owner) {
    io.stdout.write("No direct message arrived: until an owner is set every chat is tool-free. Run this again, or set owner_open_id in [channels.feishu].\n");
    return;
  }
  writeStored(scvHome, account, { app_id: opts.appId, app_secret: secret, owner_open_id: owner, domain });
  io.stdout.write(`Owner recorded: ${owner}. Restart the daemon (\`scv daemon restart\`) to use it.\n`);
}

export function feishuLogout(scvHome: string, config: FeishuConfig, io: Io): void {
  const file = credentialsFile(scvHome, config.account);
  if (removeStored(scvHome, config.account)) io.stdout.write(`Removed the stored Feishu credentials (${file}).\n`);
  else io.stdout.write(`No Feishu credentials were stored for account ${config.account}.\n`);
}
