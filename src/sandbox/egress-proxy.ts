// SCV's egress proxy for sandboxed commands, in the SCV process, for commands whose `[sandbox.network]` is a
// table. Each command gets its own listener: the socket the launcher listens on at
// 127.0.0.1:PORT inside the command's network namespace (loopback.ts), which SCV takes from the command with
// pidfd_getfd and accepts on, so every connection is known to belong to one command and no process relays. It speaks HTTP (plain
// requests in absolute form, the Host header checked against the URL, and CONNECT) and SOCKS5 with remote
// resolution; it resolves names itself through src/net's checking resolver (private, loopback, link-local,
// metadata and CGNAT results refused unless listed literally) and connects only to the addresses it checked.
import { readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { NetError, resolveChecked, type LookupFn } from "../net";
import { appendEgressLog, type EgressEntry } from "./egress-log";
import { judgeHost, listedAddress, READ_METHODS, type EgressRules } from "./egress-rules";
import { SYS, sys } from "./sys";

export { egressLogFile, type EgressEntry } from "./egress-log";

/** One command's listener: what the proxy refused it (the call's result names these). */
export interface EgressListener {
  /** The Unix socket it also listens on, when given one (tests and the bench speak to the proxy through it). */
  socket?: string;
  /**
   * Takes the listening socket the launcher left at `fd` in the command `pid` (inside its network namespace, at
   * 127.0.0.1:PORT) and accepts on it: tried until it is there (the launcher makes it before it executes the
   * command) or the process is gone.
   */
  adopt(pid: number, fd: number): void;
  /** Accepts on a listening socket already in this process (the direct start makes it in the namespace: direct.ts). */
  serve(fd: number): void;
  refused(): EgressEntry[];
  close(): void;
}

export interface EgressContext {
  rules: EgressRules;
  /** The log file; undefined logs nothing to disk (the refusals still reach the call). */
  logFile?: string;
  session?: string;
  command?: string;
}

const HEAD_LIMIT = 32 * 1024;
const HEAD_TIMEOUT_MS = 30_000;

/** Opens a listener for one command (and at `socketPath`, when given); connections are judged by `ctx`. */
export function openEgressListener(socketPath: string | undefined, ctx: EgressContext): EgressListener {
  const refused: EgressEntry[] = [];
  const lookup = ctx.rules.hostsFile ? hostsFileLookup(ctx.rules.hostsFile) : undefined;
  const log = (entry: Omit<EgressEntry, "time" | "session" | "command">) => {
    const full: EgressEntry = { time: new Date().toISOString(), ...entry, ...(ctx.session ? { session: ctx.session } : {}), ...(ctx.command ? { command: ctx.command.slice(0, 200) } : {}) };
    if (full.action === "refused") refused.push(full);
    if (ctx.logFile) appendEgressLog(ctx.logFile, full); // bounded, and made safe (egress-log.ts)
  };
  const open = new Set<net.Socket>();
  const accept = (client: net.Socket) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    client.on("error", () => client.destroy());
    serve(client, { rules: ctx.rules, lookup, log });
  };
  const servers: net.Server[] = [];
  let closed = false;
  if (socketPath) {
    const server = net.createServer(accept);
    server.on("error", () => {});
    server.listen(socketPath); // binds before returning (Bun and Node bind a path synchronously)
    servers.push(server);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listenOn = (fd: number) => {
    const server = net.createServer(accept);
    server.on("error", () => {});
    server.listen({ fd });
    servers.push(server);
  };
  return {
    ...(socketPath ? { socket: socketPath } : {}),
    serve: listenOn,
    adopt(pid, fd) {
      const started = Date.now();
      const attempt = () => {
        timer = undefined;
        if (closed) return;
        const got = takeFd(pid, fd);
        if (got === "gone") return;
        if (typeof got === "number") return listenOn(got);
        if (Date.now() - started < ADOPT_LIMIT_MS) timer = setTimeout(attempt, ADOPT_RETRY_MS);
      };
      attempt();
    },
    refused: () => [...refused],
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const server of servers) server.close();
      for (const s of open) s.destroy();
      if (socketPath) rmSync(socketPath, { force: true });
    },
  };
}

const ADOPT_RETRY_MS = 2;
const ADOPT_LIMIT_MS = 30_000;

/** A copy of `fd` of process `pid` (pidfd_getfd, Linux 5.6): the fd, "gone" when the process is, or undefined to retry. */
function takeFd(pid: number, fd: number): number | "gone" | undefined {
  const c = sys();
  const pidfd = Number(c.syscall(SYS.pidfd_open, BigInt(pid), 0n, 0n, 0n, 0n));
  if (pidfd < 0) return "gone";
  try {
    const got = Number(c.syscall(SYS.pidfd_getfd, BigInt(pidfd), BigInt(fd), 0n, 0n, 0n));
    return got >= 0 ? got : undefined; // EBADF before the launcher made it, EPERM while it is not dumpable
  } finally {
    c.close(pidfd);
  }
}

interface Judge {
  rules: EgressRules;
  lookup?: LookupFn;
  log(entry: Omit<EgressEntry, "time" | "session" | "command">): void;
}

/** Reads what the client says first, then handles it as SOCKS5 or HTTP; garbage gets a clear error. */
function serve(client: net.Socket, judge: Judge): void {
  let head = Buffer.alloc(0);
  const timer = setTimeout(() => client.destroy(), HEAD_TIMEOUT_MS);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    if (head[0] === 0x05) {
      client.off("data", onData);
      clearTimeout(timer);
      client.pause();
      void socks5(client, head, judge);
      return;
    }
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (head.length > HEAD_LIMIT) fail(client, 431, "the request head is larger than 32 KiB");
      return;
    }
    client.off("data", onData);
    clearTimeout(timer);
    client.pause();
    void http(client, head.subarray(0, end).toString("latin1"), head.subarray(end + 4), judge);
  };
  client.on("data", onData);
  client.on("close", () => clearTimeout(timer));
}

/** Ends the client with an HTTP error; refusals carry the reason in X-SCV-Refused. */
function fail(client: net.Socket, status: number, reason: string): void {
  const text = `SCV sandbox proxy: ${reason}\n`;
  const name = status === 403 ? "Forbidden" : status === 502 ? "Bad Gateway" : status === 431 ? "Request Header Fields Too Large" : status === 405 ? "Method Not Allowed" : "Bad Request";
  client.end(
    `HTTP/1.1 ${status} ${name}\r\nX-SCV-Refused: ${reason.replace(/[^\x20-\x7e]/g, "?")}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

async function http(client: net.Socket, head: string, rest: Buffer, judge: Judge): Promise<void> {
  const [requestLine, ...headerLines] = head.split("\r\n");
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine ?? "");
  if (!m) return fail(client, 400, "not an HTTP proxy request (send CONNECT host:port, an absolute http:// URL, or SOCKS5)");
  const [, method, target] = m as unknown as [string, string, string];
  if (method === "CONNECT") {
    const hp = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(target);
    if (!hp) return fail(client, 400, `CONNECT needs host:port, not "${target.slice(0, 100)}"`);
    const target2 = await open(client, hp[1]!, Number(hp[2]), "CONNECT", judge, 403);
    if (!target2) return;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    return splice(client, target2, rest);
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return fail(client, 400, `send the request with an absolute http:// URL through the proxy, not "${target.slice(0, 100)}"`);
  }
  if (url.protocol !== "http:") return fail(client, 400, `only http:// URLs go as plain requests; ${url.protocol} goes through CONNECT`);
  const hostHeader = headerLines.find((l) => /^host:/i.test(l))?.slice(5).trim().toLowerCase();
  if (hostHeader !== undefined && !sameHost(hostHeader, url)) {
    judge.log({ action: "refused", host: hostHeader, port: Number(url.port || 80), via: method, reason: `the Host header (${hostHeader}) does not name the URL's host (${url.host})` });
    return fail(client, 403, `the Host header (${hostHeader.slice(0, 100)}) does not name the URL's host (${url.host})`);
  }
  if (judge.rules.readOnly && !READ_METHODS.has(method)) {
    judge.log({ action: "refused", host: url.hostname, port: Number(url.port || 80), via: method, reason: `${method} is not a read ([sandbox.network] mode = "read")` });
    return fail(client, 405, `${method} is refused: [sandbox.network] mode = "read" lets only GET, HEAD and OPTIONS through on plain HTTP`);
  }
  const upstream = await open(client, url.hostname, Number(url.port || 80), method, judge, 403);
  if (!upstream) return;
  // One request per connection: Connection: close both ways, so a second request cannot ride on a judged one.
  const keep = headerLines.filter((l) => !/^(proxy-[a-z-]*|connection|keep-alive):/i.test(l));
  upstream.write(`${method} ${url.pathname}${url.search} HTTP/1.1\r\n${[...keep, "Connection: close"].join("\r\n")}\r\n\r\n`);
  if (!judge.rules.readOnly) return splice(client, upstream, rest);
  // mode = "read": nothing more of the client's goes upstream (no body, no second request riding on this one).
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
  client.on("data", () => {});
  upstream.pipe(client);
  client.resume();
}

/** Whether a Host header names the URL's host and port (the default port written or not). */
function sameHost(header: string, url: URL): boolean {
  try {
    const named = new URL(`http://${header}/`);
    return named.hostname === url.hostname && (named.port || "80") === (url.port || "80");
  } catch {
    return false;
  }
}

/**
 * Judges `host:port`, resolves it through src/net's checking resolver and connects to a checked address; on a
 * refusal answers the client (`refuse`: the HTTP status, or a SOCKS5 reply code) and returns undefined.
 */
async function open(client: net.Socket, rawHost: string, port: number, via: string, judge: Judge, refuse: number | ((code: number) => void)): Promise<net.Socket | undefined> {
  const host = rawHost.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  const deny = (reason: string, status: number, socksCode: number) => {
    judge.log({ action: "refused", host, port, via, reason });
    if (typeof refuse === "number") fail(client, status, reason);
    else refuse(socksCode);
    return undefined;
  };
  const verdict = judgeHost(judge.rules, host, port);
  if (!verdict.allowed) return deny(`${host}:${port} ${verdict.reason}`, 403, 2);
  let addresses: string[];
  try {
    const url = new URL(`http://${host.includes(":") ? `[${host}]` : host}:${port}/`);
    const checked = await resolveChecked(url, { lookup: judge.lookup, allow: (address, p) => listedAddress(judge.rules, address, p) });
    addresses = checked.addresses;
  } catch (e) {
    return deny(e instanceof NetError ? e.message.replace(" (web.allow_private_addresses lifts this)", " (list the address itself in [sandbox.network] allow, with allow_private = true, to allow it)") : `${host}:${port} is not a valid host`, 403, 2);
  }
  for (const address of addresses) {
    const socket = await connect(address, port);
    if (socket) {
      judge.log({ action: "allowed", host, port, via });
      return socket;
    }
  }
  judge.log({ action: "refused", host, port, via, reason: `no address of ${host} answered on port ${port}` });
  if (typeof refuse === "number") fail(client, 502, `no address of ${host} answered on port ${port}`);
  else refuse(5);
  return undefined;
}

function connect(address: string, port: number): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, 15_000);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** Joins client and upstream, both directions with backpressure; either end closing closes the other. */
function splice(client: net.Socket, upstream: net.Socket, early: Buffer): void {
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
  if (early.length) upstream.write(early);
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}

/** SOCKS5 (RFC 1928), no authentication, CONNECT only, names resolved here (remote resolution). */
async function socks5(client: net.Socket, first: Buffer, judge: Judge): Promise<void> {
  let buf = first;
  const need = async (n: number): Promise<boolean> => {
    while (buf.length < n) {
      const more = await nextChunk(client);
      if (!more) return false;
      buf = Buffer.concat([buf, more]);
    }
    return true;
  };
  if (!(await need(2)) || !(await need(2 + buf[1]!))) return void client.destroy();
  if (!buf.subarray(2, 2 + buf[1]!).includes(0x00)) return void client.end(Buffer.from([0x05, 0xff]));
  buf = buf.subarray(2 + buf[1]!);
  client.write(Buffer.from([0x05, 0x00]));
  if (!(await need(5))) return void client.destroy();
  const reply = (code: number): void => void client.end(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
  if (buf[0] !== 0x05) return reply(0x01);
  if (buf[1] !== 0x01) return reply(0x07); // only CONNECT
  let host: string;
  let at: number;
  if (buf[3] === 0x01) {
    if (!(await need(10))) return void client.destroy();
    host = [...buf.subarray(4, 8)].join(".");
    at = 8;
  } else if (buf[3] === 0x03) {
    if (!(await need(5 + buf[4]! + 2))) return void client.destroy();
    host = buf.subarray(5, 5 + buf[4]!).toString("latin1");
    at = 5 + buf[4]!;
  } else if (buf[3] === 0x04) {
    if (!(await need(22))) return void client.destroy();
    const hex = buf.subarray(4, 20).toString("hex");
    host = new URL(`http://[${hex.match(/.{4}/g)!.join(":")}]/`).hostname;
    at = 20;
  } else return reply(0x08);
  const port = buf.readUInt16BE(at);
  const rest = buf.subarray(at + 2);
  const upstream = await open(client, host, port, "SOCKS5", judge, reply);
  if (!upstream) return;
  client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
  splice(client, upstream, rest);
}

function nextChunk(socket: net.Socket): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const done = (b?: Buffer) => {
      socket.off("data", onData);
      socket.off("close", onClose);
      socket.pause();
      resolve(b);
    };
    const onData = (b: Buffer) => done(b);
    const onClose = () => done(undefined);
    socket.on("data", onData);
    socket.on("close", onClose);
    socket.resume();
  });
}

/** Test only (`[sandbox.network] hosts_file`): names resolved from a hosts-format file, read at each lookup. */
export function hostsFileLookup(file: string): LookupFn {
  return async (name) => {
    const out: { address: string; family: 4 | 6 }[] = [];
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
      if (address && names.some((n) => n.toLowerCase() === name)) out.push({ address, family: address.includes(":") ? 6 : 4 });
    }
    if (!out.length) throw Object.assign(new Error(`${name} is not in ${file}`), { code: "ENOTFOUND" });
    return out;
  };
}

