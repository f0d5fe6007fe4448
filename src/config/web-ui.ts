// [web_ui] listen, read: the host (brackets kept for IPv6) and port, and whether only this machine can reach it.

export function parseListen(listen: string): { host: string; port: number } {
  const at = listen.lastIndexOf(":");
  return { host: listen.slice(0, at), port: Number(listen.slice(at + 1)) };
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "[::1]" || host === "::1";
}
