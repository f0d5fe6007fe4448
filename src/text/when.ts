// One way to write a moment for a person: relative while it is recent ("just now", "5 min ago", "3 h ago",
// "2 days ago", under a week), else the local date and time in ISO order (`2026-12-03 14:05`). Machine output
// (--json) keeps full ISO timestamps.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `2026-12-03 14:05`, local time. */
export function isoLocal(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A past moment as a person reads it; a future one (or one over a week old) in ISO order. */
export function formatWhen(ms: number, now = Date.now()): string {
  const ago = now - ms;
  if (ago < 0 || ago >= 7 * DAY) return isoLocal(ms);
  if (ago < MINUTE) return "just now";
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  const days = Math.floor(ago / DAY);
  return days === 1 ? "1 day ago" : `${days} days ago`;
}
