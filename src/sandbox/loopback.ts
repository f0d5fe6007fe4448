// The launcher's part of the egress proxy (egress-proxy.ts): in the command's new network namespace it brings
// the loopback interface up and starts `scv __sandbox-relay` (relay.ts), which listens on 127.0.0.1:PORT there and
// relays each connection to the command's proxy socket. Nothing else leaves the namespace: it has no other
// interface. Loads only bun:ffi (through sys.ts) and node:fs, as the rest of the launcher.
import { join } from "node:path";
import { check, ptr, SYS, sys } from "./sys";

/** The argument that turns the `scv` binary into the relay: `scv __sandbox-relay <socket> <port> <command-pid>`. */
export const RELAY_ARG = "__sandbox-relay";
/** Where the relay's pid is left, inside the command's view (its private /tmp). */
export const RELAY_PID_FILE = "/tmp/.scv-relay.pid";

const AF_INET = 2n;
const SOCK_STREAM = 1n;
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
 * Starts the relay. The launcher binds and listens on 127.0.0.1:`port` itself (a few system calls) and hands the
 * listening socket to the relay as its fd 3, so it need not wait for the relay to start: a connection the command
 * makes meanwhile waits in the socket's backlog. The relay is started through a shell that leaves it behind (it is
 * no child of the command, which the process runner would count as a process the command left running) in a
 * session of its own; the shell writes its pid to /tmp/.scv-relay.pid (the command's private /tmp), where SCV reads
 * it (index.ts). The relay ends when the command's pid does.
 */
export function startRelay(socket: string, port: number): void {
  const c = sys();
  const fd = check(c.syscall(SYS.socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0n, 0n, 0n), "socket (for the network relay)");
  try {
    // struct sockaddr_in: family (host order), port (network order), 127.0.0.1 (network order), 8 bytes of zero.
    const addr = new Uint8Array(16);
    const view = new DataView(addr.buffer);
    view.setUint16(0, Number(AF_INET), true);
    view.setUint16(2, port, false);
    view.setUint32(4, 0x7f000001, false);
    check(c.syscall(SYS.bind, BigInt(fd), BigInt(ptr(addr)), 16n, 0n, 0n), `bind of 127.0.0.1:${port} (for the network relay)`);
    check(c.syscall(SYS.listen, BigInt(fd), 512n, 0n, 0n, 0n), "listen (for the network relay)");
    const sh = Bun.spawn(["/bin/sh", "-c", `"$@" & echo $! > ${RELAY_PID_FILE}`, "sh", ...relayPrefix(), RELAY_ARG, socket, String(port), String(process.pid), "--listening-fd=3"], {
      cwd: "/",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["ignore", "ignore", "ignore", fd],
      detached: true,
    });
    c.syscall(SYS.wait4, BigInt(sh.pid), 0n, 0n, 0n, 0n);
  } finally {
    c.close(fd);
  }
}
