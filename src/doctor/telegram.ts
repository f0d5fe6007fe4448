// `scv doctor`'s Telegram line: the bot token is set and Telegram accepts it (one bounded getMe). The token is in
// the request path, so nothing here ever shows a URL; Telegram's own words are shown with the token cut out.
import type { Config } from "../config/schema";
import type { DoctorContext, DoctorLine } from "./checks";

export async function checkTelegram(ctx: DoctorContext, config: Config): Promise<DoctorLine[]> {
  const t = config.channels.telegram;
  if (!t?.enabled) return [];
  const area = `telegram/${t.account}`;
  const token = ctx.env[t.token_env] ?? "";
  if (!token) return [{ area, verdict: "problem", text: `no bot token: ${t.token_env} is not set`, fix: `set ${t.token_env} to the token @BotFather gave (in the daemon's environment too), or name another variable in [channels.telegram] token_env` }];
  const clean = (s: string) => s.split(token).join("<token>").split(encodeURIComponent(token)).join("<token>");
  const host = new URL(t.base_url).host;
  try {
    const res = await fetch(`${t.base_url.replace(/\/+$/, "")}/bot${token}/getMe`, { method: "POST", signal: AbortSignal.timeout(Math.min(ctx.timeoutMs, 10_000)), redirect: "manual", proxy: t.proxy ?? false } as RequestInit);
    const body = (await res.json().catch(() => undefined)) as { ok?: boolean; result?: { username?: string }; error_code?: number; description?: string } | undefined;
    if (body?.ok && body.result) return [{ area, verdict: "ok", text: `the token is accepted: the bot is @${body.result.username ?? "?"}` }];
    const code = body?.error_code ?? res.status;
    const said = clean(String(body?.description ?? `HTTP ${res.status}`)).slice(0, 200);
    if (code === 401 || code === 404) return [{ area, verdict: "problem", text: `Telegram rejected the bot token (${code}: ${said})`, fix: `put the token @BotFather gave in ${t.token_env} (/token in @BotFather shows it), then restart the daemon` }];
    return [{ area, verdict: "warning", text: `getMe at ${host} failed (${code}: ${said})`, fix: "try again later; `scv channels status` shows what the daemon sees" }];
  } catch (e) {
    return [{ area, verdict: "warning", text: `cannot reach the Bot API at ${host}: ${clean((e as Error).message).slice(0, 200)}`, fix: "check the network (or [channels.telegram] proxy / base_url)" }];
  }
}
