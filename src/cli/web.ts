// `scv web [--revoke]`: a one-time sign-in link for the daemon's web page ([web_ui]), asked for over the
// daemon's private socket (only this user can); on a desktop the browser opens it. --revoke ends every web session.
import { defineCommand } from "./command";
import { scvHome } from "../config/load";

function fail(message: string, code = 1): void {
  process.stderr.write(`scv web: ${message}\n`);
  process.exitCode = code;
}

async function ask(path: string): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false }> {
  const { daemonFetch, probeDaemon } = await import("../daemon/client");
  const home = scvHome();
  if ((await probeDaemon(home)).state !== "running") {
    fail("the daemon is not running; start it with `scv daemon start` (the web page is served by the daemon)");
    return { ok: false };
  }
  const res = await daemonFetch(home, path, { method: "POST" });
  if (res.status === 404) {
    fail("the running daemon serves no web page: set [web_ui] enabled = true in config.toml, then `scv daemon restart`");
    return { ok: false };
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    fail(String(body.error ?? `the daemon answered ${res.status}`));
    return { ok: false };
  }
  return { ok: true, body };
}

export default defineCommand({
  meta: { name: "web", description: "Print (and on a desktop open) a one-time sign-in link for the daemon's web page" },
  args: { revoke: { type: "boolean", description: "end every web session and void unused sign-in links" } },
  async run({ args }) {
    if (args.revoke) {
      const r = await ask("/web/revoke");
      if (r.ok) process.stdout.write(`ended ${Number(r.body.ended)} web session(s); unused sign-in links no longer work\n`);
      return;
    }
    const r = await ask("/web/link");
    if (!r.ok) return;
    const url = String(r.body.url);
    const minutes = Math.round(Number(r.body.expires_in_seconds) / 60);
    process.stdout.write(`${url}\n`);
    process.stderr.write(`This link signs you in once, within ${minutes} minutes; keep it to yourself. \`scv web --revoke\` signs every browser out.\n`);
    const { isatty } = await import("node:tty");
    if (isatty(1) && (process.env.DISPLAY || process.env.WAYLAND_DISPLAY)) {
      try {
        const opener = Bun.spawn(["xdg-open", url], { stdio: ["ignore", "ignore", "ignore"] });
        opener.unref();
      } catch {}
    }
  },
});
