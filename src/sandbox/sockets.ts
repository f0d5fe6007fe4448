// Unix sockets bound to a path are reached through the file system, not the network: a network namespace does not
// stop `connect("/run/user/1000/bus")`, a read-only mount does not either (sockets are exempt), and Landlock has no
// right for it yet. So every socket bound on the host is hidden by path in the command's mount namespace (mounts.ts
// covers each with /dev/null), except the ones the user lists (`[sandbox] allow_unix_sockets`) and those inside the
// command's own writable places (what it could bind itself). The kernel lists them in /proc/net/unix.
import { readFileSync } from "node:fs";
import { under } from "./paths";

/** The path of every socket bound on this host (the network namespace SCV runs in), from /proc/net/unix. */
export function parseUnixSockets(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the eighth field, and may hold spaces.
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const path = f.slice(7).join(" ");
    if (path.startsWith("/")) out.add(path);
  }
  return [...out];
}


/** The host's sockets a command must not reach: all but `allowed` and those under `writable`. */
export function socketsToHide(allowed: readonly string[], writable: readonly string[], text = readProcNetUnix()): string[] {
  return parseUnixSockets(text).filter((p) => !allowed.includes(p) && !writable.some((w) => under(p, w)));
}

function readProcNetUnix(): string {
  try {
    return readFileSync("/proc/net/unix", "utf8");
  } catch {
    return "";
  }
}
