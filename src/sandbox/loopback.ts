// The launcher's part of the egress proxy (egress-proxy.ts): in the command's new network namespace it brings
// the loopback interface up and listens on 127.0.0.1:PORT, where the command's proxy variables point; SCV accepts
// on that socket itself. Nothing else leaves the namespace: it has no other interface. Loads only bun:ffi
// (through sys.ts), as the rest of the launcher.
import { check, ptr, SYS, sys } from "./sys";

const AF_INET = 2n;
const SOCK_STREAM = 1n;
const SOCK_DGRAM = 2n;
const SOCK_CLOEXEC = 0x80000n;
const SIOCGIFFLAGS = 0x8913n;
const SIOCSIFFLAGS = 0x8914n;
const IFF_UP = 1;
const SOL_SOCKET = 1n;
const SO_REUSEADDR = 2n;

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

/**
 * Binds and listens on 127.0.0.1:`port` in this namespace and leaves the socket at `fd` (not close-on-exec), so the
 * command holds it after the launcher executes it in place; SCV takes a copy from the command's pid
 * (pidfd_getfd, egress-proxy.ts) and accepts on it. A connection made before that waits in the backlog.
 */
export function listenInside(port: number, fd: number): void {
  const c = sys();
  const sock = check(c.syscall(SYS.socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0n, 0n, 0n), "socket (for the network proxy)");
  try {
    // struct sockaddr_in: family (host order), port (network order), 127.0.0.1 (network order), 8 bytes of zero.
    const addr = new Uint8Array(16);
    const view = new DataView(addr.buffer);
    view.setUint16(0, Number(AF_INET), true);
    view.setUint16(2, port, false);
    view.setUint32(4, 0x7f000001, false);
    // SO_REUSEADDR: in the session's shared namespace an earlier command's connections to this port may linger in
    // TIME_WAIT, which would refuse the bind.
    const one = new Int32Array([1]);
    check(c.syscall(SYS.setsockopt, BigInt(sock), SOL_SOCKET, SO_REUSEADDR, BigInt(ptr(one)), 4n), "setsockopt SO_REUSEADDR (for the network proxy)");
    check(c.syscall(SYS.bind, BigInt(sock), BigInt(ptr(addr)), 16n, 0n, 0n), `bind of 127.0.0.1:${port} (for the network proxy)`);
    check(c.syscall(SYS.listen, BigInt(sock), 512n, 0n, 0n, 0n), "listen (for the network proxy)");
    check(c.syscall(SYS.dup3, BigInt(sock), BigInt(fd), 0n, 0n, 0n), `dup3 to fd ${fd} (for the network proxy)`);
  } finally {
    c.close(sock);
  }
}
