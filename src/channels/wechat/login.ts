// `scv channels login wechat`: the iLink QR login. Asks base_url for a QR code, shows it (drawn when stdout is
// a terminal, its link always printed), polls its status through scanned / confirmed / expired (a fresh code on
// expiry, at most three), and on `confirmed` stores the bot token, bot ID, base URL and the owner's user ID in
// $SCV_HOME (0600, atomic). Nothing of them is printed. A running daemon notices the new file by itself.
import { sleep } from "../core/sleep";
import { IlinkClient, IlinkTransportError } from "./api";
import { loginFile, readLogin, saveLogin } from "./store";
import { QrCodeResponse, QrStatusResponse } from "./wire";

export interface LoginIO {
  /** Progress and the QR code (stderr in the CLI, so stdout stays for results). */
  say(text: string): void;
  /** Draw the QR code as text (stdout is a terminal). */
  drawQr: boolean;
  /** Asks for the digits WeChat shows on the phone; undefined when nobody can answer. */
  askCode?(): Promise<string | undefined>;
}

export interface LoginOptions {
  scvHome: string;
  account: string;
  baseUrl: string;
  cdnBaseUrl: string;
  proxy?: string;
  io: LoginIO;
  signal?: AbortSignal;
  pollMs?: number;
  totalMs?: number;
}

export class LoginError extends Error {}

const MAX_CODES = 4; // the first plus three fresh ones
const STATUS_POLL_MS = 35_000;

async function qrText(url: string): Promise<string> {
  const { renderUnicodeCompact } = await import("uqr");
  return renderUnicodeCompact(url, { border: 2 });
}

/** Runs the login; resolves with the path of the stored login, or throws LoginError with what to do. */
export async function loginWechat(opts: LoginOptions): Promise<{ file: string; already?: boolean }> {
  const client = new IlinkClient({ baseUrl: opts.baseUrl, cdnBaseUrl: opts.cdnBaseUrl, proxy: opts.proxy });
  const existing = readLogin(opts.scvHome, opts.account);
  const deadline = Date.now() + (opts.totalMs ?? 480_000);
  const { io } = opts;
  for (let code = 1; code <= MAX_CODES; code++) {
    const qr = await client.post("get_bot_qrcode?bot_type=3", { local_token_list: existing ? [existing.bot_token] : [] }, QrCodeResponse, opts.signal);
    if (io.drawQr) io.say(`${await qrText(qr.qrcode_img_content)}\n`);
    io.say(`Scan ${io.drawQr ? "this code" : "the code at this link"} with the WeChat of the person SCV will answer to (the owner):\n  ${qr.qrcode_img_content}\n`);
    io.say("waiting for the scan (a code lives about 5 minutes; Ctrl-C cancels)…\n");
    let scanned = false;
    let verifyCode: string | undefined;
    for (;;) {
      if (opts.signal?.aborted) throw new LoginError("cancelled");
      if (Date.now() > deadline) throw new LoginError("no confirmed scan within 8 minutes; run `scv channels login wechat` again");
      const query = `ilink/bot/get_qrcode_status?qrcode=${encodeURIComponent(qr.qrcode)}${verifyCode ? `&verify_code=${encodeURIComponent(verifyCode)}` : ""}`;
      let status;
      try {
        status = await client.get(query, QrStatusResponse, AbortSignal.any([AbortSignal.timeout(STATUS_POLL_MS), ...(opts.signal ? [opts.signal] : [])]));
      } catch (e) {
        if (opts.signal?.aborted) throw new LoginError("cancelled");
        // A timed-out long poll, a network hiccup or a gateway error all mean "still waiting".
        if ((e as Error).name === "TimeoutError" || e instanceof IlinkTransportError) status = { status: "wait" } as const;
        else throw e;
      }
      switch (status.status) {
        case "scaned":
          if (!scanned) io.say("scanned: confirm the login on the phone…\n");
          scanned = true;
          break;
        case "need_verifycode": {
          verifyCode = await io.askCode?.();
          if (!verifyCode) throw new LoginError("WeChat asks for the digits shown on the phone; run `scv channels login wechat` in a terminal to type them");
          continue;
        }
        case "expired":
        case "verify_code_blocked":
          break;
        case "scaned_but_redirect":
          if (status.redirect_host && status.redirect_host !== new URL(opts.baseUrl).host) {
            throw new LoginError(`WeChat redirects this login to ${status.redirect_host}, which is not the configured base_url; set [channels.wechat] base_url = "https://${status.redirect_host}" and log in again`);
          }
          break;
        case "binded_redirect":
          if (existing) {
            io.say("this WeChat is already bound to SCV; the stored login stays\n");
            return { file: loginFile(opts.scvHome, opts.account), already: true };
          }
          throw new LoginError("WeChat says this bot is already bound elsewhere, and SCV has no stored login; unbind it in WeChat and log in again");
        case "confirmed": {
          if (!status.bot_token || !status.ilink_bot_id || !status.ilink_user_id) throw new LoginError("WeChat confirmed the login but left out the bot token, bot ID or user ID; try again");
          saveLogin(opts.scvHome, opts.account, {
            bot_token: status.bot_token,
            bot_id: status.ilink_bot_id,
            base_url: status.baseurl || opts.baseUrl,
            owner: status.ilink_user_id,
            saved_at: new Date().toISOString(),
          });
          return { file: loginFile(opts.scvHome, opts.account) };
        }
      }
      if (status.status === "expired" || status.status === "verify_code_blocked") {
        if (code < MAX_CODES) io.say("the code expired; here is a fresh one\n");
        break;
      }
      await sleep(opts.pollMs ?? 1000, opts.signal);
    }
  }
  throw new LoginError(`the code expired ${MAX_CODES} times; run \`scv channels login wechat\` again when you have the phone at hand`);
}
