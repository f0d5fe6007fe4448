// A local TCP listener that counts connections: proxy variables pointed at it reveal any connector that
// honoured them (and any request for a host that is not on loopback when NO_PROXY covers loopback).
export interface ProxyTrap {
  url: string;
  connections(): number;
  stop(): void;
}

export function startProxyTrap(): ProxyTrap {
  let connections = 0;
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        connections++;
        socket.end();
      },
      data() {},
    },
  });
  return { url: `http://127.0.0.1:${listener.port}`, connections: () => connections, stop: () => listener.stop(true) };
}

// Points every proxy variable (any case) at a trap, runs `fn`, and restores the environment.
export async function withProxyTrap(fn: () => Promise<void>): Promise<number> {
  const trap = startProxyTrap();
  const names = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"];
  const saved = Object.fromEntries(names.map((k) => [k, process.env[k]]));
  for (const k of names) {
    if (k.toLowerCase() === "no_proxy") delete process.env[k];
    else process.env[k] = trap.url;
  }
  try {
    await fn();
  } finally {
    for (const k of names) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    trap.stop();
  }
  return trap.connections();
}
