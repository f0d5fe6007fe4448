// Who may use the web page: a one-time sign-in token (minted over the daemon's private socket by `scv web`)
// becomes a session of two halves. The cookie (HttpOnly) is sent by the browser to every port of this host, so it
// is never enough alone; the page key is handed out once, in the sign-in answer, kept by the page in its origin's
// own storage (never in a cookie) and sent in the X-SCV-Key header on every data request and change. Only digests
// are kept, in memory: no token, cookie or key is ever written to a file, and a daemon restart signs everyone out.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../digest";

const TOKEN_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 30 * 86_400_000;
/** Failed sign-in attempts per minute from one client address; a valid link is never refused for them. */
const FAILURES_PER_MINUTE = 10;
const MAX_PENDING_TOKENS = 32;
/** Client addresses whose failures are remembered; the oldest is forgotten first. */
const MAX_CLIENTS = 1024;

export interface WebSession {
  /** The digest of the page key. */
  key: string;
  expires: number;
}

export type Redeemed = { ok: true; cookie: string; key: string } | { ok: false; why: "rate" | "invalid" };

export class WebAuth {
  private readonly tokens = new Map<string, number>();
  private readonly sessions = new Map<string, WebSession>();
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time sign-in token, valid for TOKEN_TTL_MS. */
  mint(): { token: string; expiresInSeconds: number } {
    this.expire();
    if (this.tokens.size >= MAX_PENDING_TOKENS) this.tokens.delete(this.tokens.keys().next().value!);
    const token = randomBytes(32).toString("base64url");
    this.tokens.set(sha256Hex(token), this.now() + TOKEN_TTL_MS);
    return { token, expiresInSeconds: TOKEN_TTL_MS / 1000 };
  }

  /**
   * Spends a sign-in token: the session's cookie and page key, or why not. A live token always works, however
   * many bad attempts came before it (from any client): a token is 256 random bits, so the limit on failures,
   * counted per client address, only keeps a flood cheap and quiet; it can never keep the owner signed out.
   */
  redeem(token: string, client: string): Redeemed {
    const now = this.now();
    const digest = sha256Hex(token);
    const expires = this.tokens.get(digest);
    this.tokens.delete(digest); // once, whatever happens next
    if (expires !== undefined && expires >= now) {
      const cookie = randomBytes(32).toString("base64url");
      const key = randomBytes(32).toString("base64url");
      this.sessions.set(sha256Hex(cookie), { key: sha256Hex(key), expires: now + SESSION_TTL_MS });
      return { ok: true, cookie, key };
    }
    const recent = (this.failures.get(client) ?? []).filter((t) => now - t < 60_000);
    this.failures.delete(client); // re-inserted last: the map's order is oldest first
    if (recent.length >= FAILURES_PER_MINUTE) {
      this.failures.set(client, recent);
      return { ok: false, why: "rate" };
    }
    recent.push(now);
    this.failures.set(client, recent);
    while (this.failures.size > MAX_CLIENTS) this.failures.delete(this.failures.keys().next().value!);
    return { ok: false, why: "invalid" };
  }

  /** The session a cookie value opens, if it is live (the cookie half only: see `keyed`). */
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

  /** Whether `key` (the X-SCV-Key header) is this session's page key. */
  keyed(session: WebSession, key: string | undefined): boolean {
    return !!key && key.length <= 256 && sha256Hex(key) === session.key;
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
    for (const [k, f] of this.failures) if (!f.some((t) => now - t < 60_000)) this.failures.delete(k);
  }
}
