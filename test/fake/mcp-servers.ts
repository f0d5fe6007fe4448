// The real MCP servers from npm (devDependencies) and the hostile stand-in, as config for a test's SCV_HOME.
// They need Node 20+ or Bun to run; Node is used when it is new enough, else the Bun running the tests.
import { createServer } from "node:net";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const HOSTILE = join(import.meta.dir, "mcp-hostile.ts");
export const LOOPBACK_LISTEN = join(import.meta.dir, "loopback-listen.cjs");

/** The program that runs a server's dist/index.js: node 20 or later when on PATH, else this Bun. */
export const JS_RUNTIME: string = (() => {
  const node = Bun.which("node");
  if (node) {
    const out = Bun.spawnSync([node, "--version"]).stdout.toString();
    if (Number(/^v(\d+)/.exec(out)?.[1] ?? 0) >= 20) return node;
  }
  return process.execPath;
})();

/** A `[mcp.servers.<name>]` table; values are TOML (JSON strings and arrays are valid TOML). */
export function serverToml(name: string, keys: Record<string, unknown>): string {
  const lines = [`[mcp.servers.${name}]`];
  for (const [k, v] of Object.entries(keys)) {
    if (v && typeof v === "object" && !Array.isArray(v)) lines.push(`${k} = { ${Object.entries(v).map(([a, b]) => `${a} = ${JSON.stringify(b)}`).join(", ")} }`);
    else lines.push(`${k} = ${JSON.stringify(v)}`);
  }
  return `${lines.join("\n")}\n`;
}

export const everythingStdio = (extra: Record<string, unknown> = {}) => ({ command: JS_RUNTIME, args: [EVERYTHING, "stdio"], ...extra });
export const hostile = (mode: string, extra: Record<string, unknown> & { args?: string[] } = {}) => ({ ...extra, command: process.execPath, args: [HOSTILE, mode, ...(extra.args ?? [])] });

/** A free loopback port (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** server-everything in streamable HTTP mode on 127.0.0.1:`port`; resolves once it accepts connections. */
export async function startEverythingHttp(port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const preload = JS_RUNTIME === process.execPath ? ["--preload", LOOPBACK_LISTEN] : ["--require", LOOPBACK_LISTEN];
  const proc = Bun.spawn([JS_RUNTIME, ...preload, EVERYTHING, "streamableHttp"], { env: { PATH: process.env.PATH ?? "", PORT: String(port) }, stdout: "ignore", stderr: "pipe" });
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "GET" });
      await r.body?.cancel();
      break;
    } catch {
      if (Date.now() > deadline || proc.exitCode !== null) {
        proc.kill("SIGKILL");
        throw new Error(`server-everything (HTTP) did not start: ${await new Response(proc.stderr).text()}`);
      }
      await Bun.sleep(100);
    }
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}

export function alive(pid: number): boolean {
  try {
    const stat = require("node:fs").readFileSync(`/proc/${pid}/stat`, "utf8") as string;
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}
