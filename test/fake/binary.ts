// The compiled binary under test. `bun run build` makes it; tests that need it fail with that advice.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SCV_BINARY = join(import.meta.dir, "..", "..", "dist", "scv");

export function requireBinary(): string {
  if (!existsSync(SCV_BINARY)) throw new Error(`${SCV_BINARY} is missing: run \`bun run build\` before the tests`);
  return SCV_BINARY;
}

/** A temporary SCV_HOME whose active provider is the fake endpoint at `baseUrl`, and an empty workspace. */
export function fakeHome(baseUrl: string, extra = ""): { home: string; workspace: string; env: Record<string, string> } {
  const root = mkdtempSync(join(tmpdir(), "scv-bin-"));
  const home = join(root, "scv-home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${baseUrl}"\nmodel = "fake-model"\nmax_retries = 0\n${extra}`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "home"), SCV_HOME: home };
  return { home, workspace, env };
}

/** `dist/scv server --stdio` with its messages collected; `waitFor` resolves on the first matching one. */
export function startStdioServer(env: Record<string, string>, cwd: string) {
  const proc = Bun.spawn([requireBinary(), "server", "--stdio"], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const messages: any[] = [];
  const waiters: { pred: (m: any) => boolean; resolve(m: any): void }[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) !== -1) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        messages.push(msg);
        for (const w of [...waiters]) if (w.pred(msg)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(msg));
      }
    }
  })();
  const waitFor = (pred: (m: any) => boolean, ms = 10_000) => {
    const seen = messages.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<any>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout; got ${JSON.stringify(messages).slice(0, 2000)}`)), ms);
      waiters.push({ pred, resolve: (m) => (clearTimeout(t), resolve(m)) });
    });
  };
  const send = (obj: unknown) => {
    proc.stdin.write(typeof obj === "string" ? obj : `${JSON.stringify(obj)}\n`);
    proc.stdin.flush();
  };
  return { proc, messages, waitFor, send };
}
