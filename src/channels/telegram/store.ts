// What the Telegram channel keeps in its state directory ($SCV_HOME/state/channels/telegram/<account>/):
// the pairing code `scv channels telegram pair` made (only its digest, with its expiry), the owner the first
// `/start CODE` made, and the message parts already sent (so a retried reply never repeats a part).
import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { readBoundedTextIfExists } from "../../fs/safe-read";
import { channelStateDir } from "../core/inbound";

/** How long a pairing code is good for. */
export const PAIRING_MS = 10 * 60_000;
/** No 0/O, 1/I/L: a code read off one screen and typed on a phone. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export function telegramDir(scvHome: string, account: string): string {
  return channelStateDir(scvHome, "telegram", account);
}

const digest = (code: string) => createHash("sha256").update(code.trim().toUpperCase()).digest();

function readJson<T>(file: string): T | undefined {
  try {
    const raw = readBoundedTextIfExists(file, { what: "telegram state", maxBytes: 64 * 1024, followSymlink: false });
    return raw ? (JSON.parse(raw) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Makes a new one-time code (replacing any earlier one) and returns it with its expiry. */
export function newPairingCode(scvHome: string, account: string, now = Date.now()): { code: string; expires: number } {
  const dir = telegramDir(scvHome, account);
  ensurePrivateDir(dir);
  let code = "";
  for (let i = 0; i < 8; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  const expires = now + PAIRING_MS;
  writePrivateFileAtomic(join(dir, "pairing.json"), JSON.stringify({ digest: digest(code).toString("hex"), expires }));
  return { code, expires };
}

/**
 * Whether `code` is the pending pairing code, unexpired; a match uses it up (one owner per code). An expired
 * code is removed.
 */
export function takePairingCode(scvHome: string, account: string, code: string, now = Date.now()): "paired" | "wrong" | "expired" | "none" {
  const file = join(telegramDir(scvHome, account), "pairing.json");
  const pending = readJson<{ digest?: string; expires?: number }>(file);
  if (!pending?.digest || typeof pending.expires !== "number") return "none";
  if (now > pending.expires) {
    tryUnlink(file);
    return "expired";
  }
  const want = Buffer.from(pending.digest, "hex");
  const given = digest(code);
  if (want.length !== given.length || !timingSafeEqual(want, given)) return "wrong";
  tryUnlink(file);
  return "paired";
}

export function storedOwner(scvHome: string, account: string): string {
  const owner = readJson<{ user_id?: string }>(join(telegramDir(scvHome, account), "owner.json"));
  return typeof owner?.user_id === "string" && /^[1-9][0-9]{0,19}$/.test(owner.user_id) ? owner.user_id : "";
}

export function saveOwner(scvHome: string, account: string, userId: string): void {
  const dir = telegramDir(scvHome, account);
  ensurePrivateDir(dir);
  writePrivateFileAtomic(join(dir, "owner.json"), JSON.stringify({ user_id: userId, paired_at: new Date().toISOString() }));
}
