// `scv __sandbox-relay <socket> <port> <command-pid>`: started by the launcher inside a sandboxed command's network namespace
// (loopback.ts). It serves 127.0.0.1:PORT there (the socket the launcher bound, or its own), where the command's proxy variables point, and joins each
// connection to the command's egress socket (egress-proxy.ts), the only way out of the namespace. It ends with
// the command (it watches the command's pid) and cannot be traced by it (not dumpable).
import { readFileSync } from "node:fs";
import net from "node:net";
import { libc } from "../process/libc";

const PR_SET_DUMPABLE = 4;
const WATCH_MS = 200;
/** `--listening-fd=N`: the launcher bound and listens on the port itself and hands the socket over as fd N. */
const FD_FLAG = "--listening-fd=";

/** A process's start time (field 22 of /proc/PID/stat), so a reused pid is not taken for the command. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

export function runRelay(args: string[]): void {
  const [socket, portText, pidText, fdArg] = args;
  const port = Number(portText);
  const watched = Number(pidText);
  const fd = fdArg?.startsWith(FD_FLAG) ? Number(fdArg.slice(FD_FLAG.length)) : undefined;
  const fail = (why: string, code: number): never => {
    process.stderr.write(`scv __sandbox-relay: ${why}\n`);
    process.exit(code);
  };
  if (!socket || !Number.isInteger(port) || port < 1 || port > 65535 || !Number.isInteger(watched) || (fdArg !== undefined && !Number.isInteger(fd))) {
    fail(`usage: scv __sandbox-relay <socket> <port> <command-pid> [${FD_FLAG}N]`, 2);
  }
  // It lives as long as the command: the launcher's pid, which the command kept when it was executed in place.
  const started = startTimeOf(watched);
  if (!started) fail(`the command (pid ${watched}) is not running`, 1);
  setInterval(() => startTimeOf(watched) !== started && process.exit(0), WATCH_MS);
  libc()?.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n); // the command cannot trace it
  const server = net.createServer((client) => {
    const upstream = net.connect(socket);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  // Closing the listening socket (by exiting) makes the command's connections fail rather than wait.
  server.on("error", (e) => fail(`cannot listen on 127.0.0.1:${port}: ${e.message}`, 1));
  if (fd !== undefined) server.listen({ fd });
  else server.listen(port, "127.0.0.1");
}
