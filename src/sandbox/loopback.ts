// The launcher's part of the egress proxy (egress-proxy.ts): in the command's new network namespace it brings
// the loopback interface up and starts `scv __sandbox-relay` (relay.ts), which listens on 127.0.0.1:PORT there and
// relays each connection to the command's proxy socket. Nothing else leaves the namespace: it has no other
// interface. Loads only bun:ffi (through sys.ts) and node:fs, as the rest of the launcher.
import { readSync } from "node:fs";
import { join } from "node:path";
import { check, O_CLOEXEC, ptr, SYS, sys } from "./sys";

/** The argument that turns the `scv` binary into the relay: `scv __sandbox-relay <socket> <port> <command-pid>`. */
export const RELAY_ARG = "__sandbox-relay";

const AF_INET = 2n;
const SOCK_DGRAM = 2n;
const SOCK_CLOEXEC = 0x80000n;
const SIOCGIFFLAGS = 0x8913n;
const SIOCSIFFLAGS = 0x8914n;
const IFF_UP = 1;

/** `ip link set lo up` through an ioctl (needs CAP_NET_ADMIN in the namespace: before capabilities are dropped). */
export function bringLoopbackUp(): void {
  const c = sys();
  const fd = check(c.syscall(SYS.socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0n, 0n, 0n), "socket (to bring loopback up)");
  try {
    // struct ifreq: the name in 16 bytes, then a short of flags (the union is 24 bytes).
    const ifr = new Uint8Array(40);
    ifr.set(Buffer.from("lo"));
    check(c.syscall(SYS.ioctl, BigInt(fd), SIOCGIFFLAGS, BigInt(ptr(ifr)), 0n, 0n), "ioctl SIOCGIFFLAGS on lo");
    const view = new DataView(ifr.buffer);
    view.setUint16(16, view.getUint16(16, true) | IFF_UP, true);
    check(c.syscall(SYS.ioctl, BigInt(fd), SIOCSIFFLAGS, BigInt(ptr(ifr)), 0n, 0n), "ioctl SIOCSIFFLAGS on lo (bringing loopback up)");
  } finally {
    c.close(fd);
  }
}

/** How to start the relay: the compiled binary itself, or (from source) bun with relay-entry.ts. */
function relayPrefix(): string[] {
  return Bun.main.startsWith("/$bunfs/") ? [process.execPath] : [process.execPath, join(import.meta.dir, "relay-entry.ts")];
}

/**
 * Starts the relay as a child that stays in this namespace after the launcher executes the command, and waits
 * until it listens (it writes `ok` on a pipe, or why not). Throws when it does not start.
 */
export function startRelay(socket: string, port: number): void {
  const c = sys();
  const fds = new Int32Array(2);
  check(c.syscall(SYS.pipe2, BigInt(ptr(fds)), BigInt(O_CLOEXEC), 0n, 0n, 0n), "pipe2 (for the network relay)");
  const [r, w] = [fds[0]!, fds[1]!];
  try {
    // Through a shell that leaves it behind: the relay is no child of the command (the process runner would count
    // it as a process the command left running) and in a session of its own; it watches the command's pid instead.
    const sh = Bun.spawn(["/bin/sh", "-c", '"$@" &', "sh", ...relayPrefix(), RELAY_ARG, socket, String(port), String(process.pid)], {
      cwd: "/",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["ignore", "ignore", "ignore", w],
      detached: true,
    });
    c.syscall(SYS.wait4, BigInt(sh.pid), 0n, 0n, 0n, 0n);
  } finally {
    c.close(w);
  }
  const buf = Buffer.alloc(512);
  let said = "";
  try {
    for (;;) {
      const n = readSync(r, buf);
      if (n <= 0) break;
      said += buf.subarray(0, n).toString();
      if (said.includes("\n")) break;
    }
  } finally {
    c.close(r);
  }
  if (!said.startsWith("ok")) throw new Error(`the network relay did not start (${said.trim() || "it exited"})`);
}
