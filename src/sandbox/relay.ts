// `scv __sandbox-relay <socket> <port> <command-pid>`: started by the launcher inside a sandboxed command's network namespace
// (loopback.ts). It listens on 127.0.0.1:PORT there, where the command's proxy variables point, and joins each
// connection to the command's egress socket (egress-proxy.ts), the only way out of the namespace. It ends with
// the command (it watches the command's pid) and cannot be traced by it (not dumpable).
import { closeSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import net from "node:net";
import { libc } from "../process/libc";

const PR_SET_DUMPABLE = 4;
const WATCH_MS = 200;
const RELAY_PID_FILE = "/tmp/.scv-relay.pid";
/** The pipe the launcher waits on: `ok`, or why not. */
const READY_FD = 3;

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
    say("usage: scv __sandbox-relay <socket> <port> <command-pid>");
    process.exit(2);
  }
  // It lives as long as the command: the launcher's pid, which the command kept when it was executed in place.
  const watched = Number(args[2]);
  const started = startTimeOf(watched);
  if (!started) {
    say(`the command (pid ${args[2]}) is not running`);
    process.exit(1);
  }
  setInterval(() => startTimeOf(watched) !== started && process.exit(0), WATCH_MS);
  libc()?.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n); // the command cannot trace it
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
  server.listen(port, "127.0.0.1", () => {
    // Where SCV reads which process is the relay (the command's /tmp is its private directory): not a leftover of the command's.
    try {
      writeFileSync(RELAY_PID_FILE, String(process.pid));
    } catch {
      // then SCV counts it among the processes stopped after the command
    }
    say("ok");
  });
}
