// Access and owner policy: who is the owner (decided per message against the adapter's owner now), which access a
// session is opened for, and how fast someone other than the owner may write. One place to read for "who gets
// tools", so a new channel only supplies its `owner`.
import { sha256Hex } from "../../digest";
import type { ChannelAdapter } from "./adapter";

/** Who a session was opened for: the owner (and which owner, as a digest), or anyone else. */
export interface Access {
  owner: boolean;
  /** A digest of the channel and owner ID the session was opened for; "" for a tool-free session. */
  ownerKey: string;
}

/** The part of a channel the policy reads. */
interface ChannelIdentity {
  /** `<kind>/<account>` */
  key: string;
  adapter: Pick<ChannelAdapter, "owner">;
}

/** The owner's direct chat: decided per message, against the adapter's owner now (a re-login changes it). */
export function isOwner(channel: ChannelIdentity, message: { direct: boolean; from: string }): boolean {
  const owner = channel.adapter.owner;
  return message.direct && owner !== "" && message.from === owner;
}

export function ownerKeyOf(channel: ChannelIdentity, owner: string): string {
  return sha256Hex(`${channel.key}\u0000${owner}`).slice(0, 16);
}

export function accessFor(channel: ChannelIdentity, message: { direct: boolean; from: string }): Access {
  const owner = isOwner(channel, message);
  return { owner, ownerKey: owner ? ownerKeyOf(channel, channel.adapter.owner) : "" };
}

export function sameAccess(a: Access, b: Access): boolean {
  return a.owner === b.owner && a.ownerKey === b.ownerKey;
}

/** A session opened for the owner of `channel` as it was, whose owner is now someone else (or nobody). */
export function formerOwners(channel: ChannelIdentity, access: Access | undefined): boolean {
  return access?.owner === true && access.ownerKey !== ownerKeyOf(channel, channel.adapter.owner);
}

/** Messages per sender in the last minute: `ok`, or over the rate (`tell` the first time, then `quiet`). */
export class SenderRate {
  private readonly senders = new Map<string, { times: number[]; told: boolean }>();

  take(sender: string, perMinute: number, now = Date.now()): "ok" | "tell" | "quiet" {
    let s = this.senders.get(sender);
    if (!s) {
      if (this.senders.size >= 10_000) this.forgetQuiet(now);
      this.senders.set(sender, (s = { times: [], told: false }));
    }
    s.times = s.times.filter((t) => now - t < 60_000);
    if (s.times.length < perMinute) {
      s.times.push(now);
      s.told = false;
      return "ok";
    }
    if (s.told) return "quiet";
    s.told = true;
    return "tell";
  }

  /** Senders with nothing in the last minute are forgotten, so thousands of them cost nothing lasting. */
  private forgetQuiet(now: number): void {
    for (const [key, s] of this.senders) if (s.times.every((t) => now - t >= 60_000)) this.senders.delete(key);
  }
}
