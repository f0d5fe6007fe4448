// Who may use the web page: a one-time sign-in token (minted over the daemon's private socket by `scv web`)
// becomes a session cookie; every state-changing request also carries the session's CSRF token. Only digests
// are kept, in memory: no token or session is ever written to a file, and a daemon restart signs everyone out.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../digest";

const TOKEN_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 30 * 86_400_000;
/** Sign-in attempts (good or bad) per minute, over every client. */
const SIGNINS_PER_MINUTE = 10;
const MAX_PENDING_TOKENS = 32;

export interface WebSession {
  csrf: string;
  expires: number;
}

export type Redeemed = { ok: true; cookie: string } | { ok: false; why: "rate" | "invalid" };

export class WebAuth {
  private readonly tokens = new Map<string, number>();
  private readonly sessions = new Map<string, WebSession>();
  private attempts: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time sign-in token, valid for TOKEN_TTL_MS. */
  mint(): { token: string; expiresInSeconds: number } {
    this.expire();
    if (this.tokens.size >= MAX_PENDING_TOKENS) this.tokens.delete(this.tokens.keys().next().value!);
    const token = randomBytes(32).toString("base64url");
    this.tokens.set(sha256Hex(token), this.now() + TOKEN_TTL_MS);
    return { token, expiresInSeconds: TOKEN_TTL_MS / 1000 };
  }

  /** Spends a sign-in token: a session cookie value, or why not (rate-limited before the token is even looked at). */
  redeem(token: string): Redeemed {
    const now = this.now();
    this.attempts = this.attempts.filter((t) => now - t < 60_000);
    if (this.attempts.length >= SIGNINS_PER_MINUTE) return { ok: false, why: "rate" };
    this.attempts.push(now);
    const key = sha256Hex(token);
    const expires = this.tokens.get(key);
    this.tokens.delete(key); // once, whatever happens next
    if (expires === undefined || expires < now) return { ok: false, why: "invalid" };
    const cookie = randomBytes(32).toString("base64url");
    this.sessions.set(sha256Hex(cookie), { csrf: randomBytes(24).toString("base64url"), expires: now + SESSION_TTL_MS });
    return { ok: true, cookie };
  }

  /** The session a cookie value opens, if it is live. */
  session(cookie: string | undefined): WebSession | undefined {
    if (!cookie) return undefined;
    const s = this.sessions.get(sha256Hex(cookie));
    if (!s) return undefined;
    if (s.expires < this.now()) {
      this.sessions.delete(sha256Hex(cookie));
      return undefined;
    }
    return s;
  }

  /** `scv web --revoke`: every session ends and every unspent token is void; returns how many sessions ended. */
  revoke(): number {
    const n = this.sessions.size;
    this.sessions.clear();
    this.tokens.clear();
    return n;
  }

  private expire(): void {
    const now = this.now();
    for (const [k, t] of this.tokens) if (t < now) this.tokens.delete(k);
    for (const [k, s] of this.sessions) if (s.expires < now) this.sessions.delete(k);
  }
}
