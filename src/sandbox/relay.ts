// `scv __sandbox-relay <socket> <port>`: started by the launcher inside a sandboxed command's network namespace
// (loopback.ts). It listens on 127.0.0.1:PORT there, where the command's proxy variables point, and joins each
// connection to the command's egress socket (egress-proxy.ts), the only way out of the namespace. It dies with
// the command (PR_SET_PDEATHSIG, and a watch on its parent) and cannot be traced by it (not dumpable).
import { closeSync, writeSync } from "node:fs";
import net from "node:net";
import { libc } from "../process/libc";

const PR_SET_PDEATHSIG = 1;
const PR_SET_DUMPABLE = 4;
const SIGKILL = 9n;
const PARENT_POLL_MS = 200;
/** The pipe the launcher waits on: `ok`, or why not. */
const READY_FD = 3;

export function runRelay(args: string[]): void {
  const [socket, portText] = args;
  const port = Number(portText);
  const say = (text: string) => {
    try {
      writeSync(READY_FD, `${text}\n`);
      closeSync(READY_FD);
    } catch {
      // the launcher is gone
    }
  };
  if (!socket || !Number.isInteger(port) || port < 1 || port > 65535) {
    say("usage: scv __sandbox-relay <socket> <port>");
    process.exit(2);
  }
  const c = libc();
  c?.prctl(PR_SET_PDEATHSIG, SIGKILL, 0n, 0n, 0n);
  // The death signal follows the thread that started the relay, which the launcher's exec may not keep: watch too.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(0), PARENT_POLL_MS).unref?.();
  c?.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n);
  const server = net.createServer((client) => {
    const upstream = net.connect(socket);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on("error", (e) => {
    say(`cannot listen on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  });
  server.listen(port, "127.0.0.1", () => say("ok"));
}
