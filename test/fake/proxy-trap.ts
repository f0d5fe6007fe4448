// Points every proxy variable (any case) at a local TCP listener that counts connections, runs `fn`, and
// restores the environment. A connector that honoured a proxy variable would show up as a connection.
export async function withProxyTrap(fn: () => Promise<void>): Promise<number> {
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
  const names = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"];
  const saved = Object.fromEntries(names.map((k) => [k, process.env[k]]));
  for (const k of names) {
    if (k.toLowerCase() === "no_proxy") delete process.env[k];
    else process.env[k] = `http://127.0.0.1:${listener.port}`;
  }
  try {
    await fn();
  } finally {
    for (const k of names) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    listener.stop(true);
  }
  return connections;
}
