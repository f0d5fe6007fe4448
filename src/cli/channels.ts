// `scv channels list|status`: the chat channels configured in [channels.*], and what the daemon reports about
// each (state, queue depths, last error).
import { defineCommand } from "./command";
import { ConfigError, loadConfig, scvHome } from "../config/load";

function configured(command: string) {
  try {
    return loadConfig().config;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`scv channels ${command}: configuration error:\n${e.message}\n`);
    process.exitCode = 78;
    return undefined;
  }
}

const NONE = "no chat channels are configured; add one to $SCV_HOME/config.toml, e.g.\n  [channels.dir]\n  path = \"/path/to/chat\"\n  owner = \"me\"\n";

const list = defineCommand({
  meta: { name: "list", description: "Show the configured chat channels" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const config = configured("list");
    if (!config) return;
    const { configuredAdapters } = await import("../channels/registry");
    // A WeChat owner is a platform user ID from the stored login: not shown, like the rest of the login.
    const rows = configuredAdapters(config, scvHome()).map((a) => ({
      name: a.kind,
      kind: a.kind,
      account: a.account,
      ...(a.kind === "wechat" ? { logged_in: !!a.owner } : { owner: a.owner }),
    }));
    if (args.json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    if (!rows.length) return void process.stdout.write(NONE);
    for (const r of rows) {
      const owner = "logged_in" in r ? (r.logged_in ? "logged in" : "logged out") : `owner ${r.owner}`;
      process.stdout.write(`${r.kind}/${r.account}  ${owner}${r.kind === "dir" && config.channels.dir ? `  path ${config.channels.dir.path}` : ""}\n`);
    }
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Each channel's state, queue depths and last error (from the daemon)" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const config = configured("status");
    if (!config) return;
    const { probeDaemon, daemonFetch } = await import("../daemon/client");
    const home = scvHome();
    const probe = await probeDaemon(home);
    if (probe.state !== "running") {
      const { configuredAdapters } = await import("../channels/registry");
      const rows = configuredAdapters(config, home).map((a) => ({
        name: a.kind,
        kind: a.kind,
        account: a.account,
        state: "stopped",
        ...(a.kind === "wechat" && !a.owner ? { reason: "logged out: run `scv channels login wechat`" } : {}),
      }));
      if (args.json) return void process.stdout.write(`${JSON.stringify({ daemon: "not running", channels: rows }, null, 2)}\n`);
      if (!rows.length) return void process.stdout.write(NONE);
      process.stdout.write("the daemon is not running (start it with `scv daemon start`); its channels are stopped:\n");
      for (const r of rows) process.stdout.write(`${r.kind}/${r.account}  stopped${r.reason ? ` (${r.reason})` : ""}\n`);
      return;
    }
    const res = await daemonFetch(home, "/channels");
    const body = res.ok ? ((await res.json()) as { channels: Array<Record<string, any>> }) : { channels: [] };
    if (args.json) return void process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    if (!body.channels.length) return void process.stdout.write(res.ok ? NONE : "the running daemon hosts no channels; restart it to load [channels.*]\n");
    for (const c of body.channels) {
      const state = c.reason ? `${c.state} (${c.reason})` : c.state;
      process.stdout.write(
        `${c.kind}/${c.account}  ${state}  inbound queued ${c.inbound_queued}, outbound pending ${c.outbound_pending}, held ${c.outbound_held}, failed ${c.outbound_failed}\n`,
      );
      if (c.last_error) process.stdout.write(`  last error: ${c.last_error}\n`);
    }
  },
});

/** The channels that log in from the command line, and each one's login module. */
const LOGINS = { wechat: () => import("./channels-wechat") } as const;

/** The channel named, when it is one that logs in (unknown options were refused by the command layer). */
function loginTarget(command: string, channel: string): keyof typeof LOGINS | undefined {
  if (channel in LOGINS) return channel as keyof typeof LOGINS;
  process.stderr.write(`scv channels ${command}: ${JSON.stringify(channel)} is not a channel that logs in; use \`scv channels ${command} wechat\`\n`);
  process.exitCode = 2;
  return undefined;
}

/** A delegated SCV may not manage channels, as it may not manage the daemon. */
async function refusedWhenDelegated(command: string): Promise<boolean> {
  const { delegatedRefusal } = await import("../daemon/refuse");
  const message = delegatedRefusal("log chat channels in or out");
  if (message) {
    process.stderr.write(`scv channels ${command}: ${message}\n`);
    process.exitCode = 3;
  }
  return !!message;
}

const login = defineCommand({
  meta: { name: "login", description: "Log a channel in: `scv channels login wechat` shows a QR code to scan with the owner's WeChat" },
  args: { channel: { type: "positional", required: true, description: "the channel (wechat)" } },
  async run({ args }) {
    if (await refusedWhenDelegated("login")) return;
    const target = loginTarget("login", args.channel);
    const config = target && configured("login");
    if (!target || !config) return;
    await (await LOGINS[target]()).login(config, scvHome());
  },
});

const logout = defineCommand({
  meta: { name: "logout", description: "Forget a channel's stored login (a running daemon stops the channel)" },
  args: { channel: { type: "positional", required: true, description: "the channel (wechat)" } },
  async run({ args }) {
    if (await refusedWhenDelegated("logout")) return;
    const target = loginTarget("logout", args.channel);
    const config = target && configured("logout");
    if (!target || !config) return;
    await (await LOGINS[target]()).logout(config, scvHome());
  },
});

export default defineCommand({
  meta: { name: "channels", description: "Chat channels the daemon hosts" },
  subCommands: { list, status, login, logout },
});
