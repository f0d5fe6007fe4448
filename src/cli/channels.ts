// `scv channels list|status|login|logout`: the chat channels configured in [channels.*], what the daemon reports
// about each (state, queue depths, last error), and the login commands of the platforms that have one.
import { terminalSafe } from "../text/terminal-safe";
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

/** A channel without a known owner answers everyone tool-free: say so, and how to set the owner. */
function writeOwnerHints(adapters: Array<{ kind: string; account: string; owner: string; ownerHint?: string }>) {
  for (const a of adapters) if (!a.owner && a.ownerHint) process.stdout.write(`  ${a.kind}/${a.account}: ${a.ownerHint}\n`);
}

const list = defineCommand({
  meta: { name: "list", description: "Show the configured chat channels" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const config = configured("list");
    if (!config) return;
    const { configuredAdapters } = await import("../channels/registry");
    const adapters = configuredAdapters(config, scvHome());
    // An owner that comes from a stored login is a platform user ID: not shown, like the rest of the login.
    const rows = adapters.map((a) => ({
      name: a.kind,
      kind: a.kind,
      account: a.account,
      ...(a.loginCommand ? { logged_in: !!a.owner } : { owner: a.owner }),
    }));
    if (args.json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    if (!rows.length) return void process.stdout.write(NONE);
    for (const [i, r] of rows.entries()) {
      const owner = "logged_in" in r ? (r.logged_in ? "logged in" : "logged out") : `owner ${r.owner || "(none)"}`;
      const where = adapters[i]!.where;
      process.stdout.write(terminalSafe(`${r.kind}/${r.account}  ${owner}${where ? `  ${where}` : ""}`) + "\n");
    }
    writeOwnerHints(adapters);
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
        ...(a.loginCommand && !a.owner ? { reason: `logged out: run \`${a.loginCommand}\`` } : {}),
      }));
      if (args.json) return void process.stdout.write(`${JSON.stringify({ daemon: "not running", channels: rows }, null, 2)}\n`);
      if (!rows.length) return void process.stdout.write(NONE);
      process.stdout.write("the daemon is not running (start it with `scv daemon start`); its channels are stopped:\n");
      for (const r of rows) process.stdout.write(terminalSafe(`${r.kind}/${r.account}  stopped${r.reason ? ` (${r.reason})` : ""}`) + "\n");
      writeOwnerHints(configuredAdapters(config, home));
      return;
    }
    const res = await daemonFetch(home, "/channels");
    const body = res.ok ? ((await res.json()) as { channels: Array<Record<string, any>> }) : { channels: [] };
    if (args.json) return void process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    if (!body.channels.length) return void process.stdout.write(res.ok ? NONE : "the running daemon hosts no channels; restart it to load [channels.*]\n");
    for (const c of body.channels) {
      const state = terminalSafe(c.reason ? `${c.state} (${c.reason})` : c.state);
      process.stdout.write(
        `${c.kind}/${c.account}  ${state}  inbound queued ${c.inbound_queued}, outbound pending ${c.outbound_pending}, held ${c.outbound_held}, failed ${c.outbound_failed}\n`,
      );
      if (c.last_error) process.stdout.write(`  last error: ${terminalSafe(c.last_error)}\n`);
    }
    const { configuredAdapters } = await import("../channels/registry");
    writeOwnerHints(configuredAdapters(config, home));
  },
});

type Io = import("../accounts/login-io").Io;
/** Options of `login`/`logout` that only some platforms take (the others refuse them). */
type SignInOptions = { "app-id"?: string; brand?: string; account?: string };

/** The channels that log in from the command line: each one's login and logout, loaded when used. */
const LOGINS: Record<string, () => Promise<{ login(o: SignInOptions, io: Io): Promise<void>; logout(o: SignInOptions, io: Io): Promise<void> }>> = {
  wechat: async () => {
    const m = await import("./channels-wechat");
    const run = (action: "login" | "logout") => async (o: SignInOptions) => {
      const given = Object.keys(o).filter((k) => o[k as keyof SignInOptions] !== undefined);
      if (given.length) throw new UsageRefusal(`--${given[0]} is for feishu; \`scv channels ${action} wechat\` takes no options`);
      const config = configured(action);
      if (config) await m[action](config, scvHome());
    };
    return { login: run("login"), logout: run("logout") };
  },
  feishu: () => import("../channels/feishu/cli"),
};

/** A wrong option for the platform named: exit 2, as the command layer does for unknown ones. */
class UsageRefusal extends Error {}

/** The channel named, when it is one that logs in (unknown options were refused by the command layer). */
function loginTarget(command: string, channel: string): string | undefined {
  if (channel in LOGINS) return channel;
  process.stderr.write(`scv channels ${command}: ${JSON.stringify(channel)} is not a channel that logs in; use ${Object.keys(LOGINS).map((k) => `\`scv channels ${command} ${k}\``).join(" or ")}\n`);
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

const signInArgs = {
  channel: { type: "positional", required: true, description: "the channel: wechat or feishu" },
  "app-id": { type: "string", valueHint: "ID", description: "feishu: an existing self-built app (cli_…); its secret is asked for without echo" },
  brand: { type: "string", valueHint: "NAME", description: "feishu: feishu or lark" },
  account: { type: "string", valueHint: "NAME", description: "feishu: the account name (default: default)" },
} as const;

/** `login|logout CHANNEL [options]`: refused in a delegated SCV; errors say what to do and set the exit status. */
function signInCommand(action: "login" | "logout", description: string) {
  return defineCommand({
    meta: { name: action, description },
    args: signInArgs,
    async run({ args }) {
      if (await refusedWhenDelegated(action)) return;
      const target = loginTarget(action, args.channel);
      if (!target) return;
      const options: SignInOptions = { "app-id": args["app-id"], brand: args.brand, account: args.account };
      try {
        await (await LOGINS[target]!())[action](options, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
      } catch (e) {
        const message = (e as Error).message;
        process.stderr.write(`${message.startsWith("scv ") ? "" : `scv channels ${action}: `}${message}\n`);
        process.exitCode = e instanceof UsageRefusal ? 2 : e instanceof ConfigError ? 78 : 1;
      }
    },
  });
}

const login = signInCommand("login", "Log a channel in: `scv channels login wechat` shows a QR code to scan with the owner's WeChat; `scv channels login feishu [--app-id cli_…] [--brand feishu|lark]`");
const logout = signInCommand("logout", "Forget a channel's stored login (a running daemon stops the channel)");

const pair = defineCommand({
  meta: { name: "pair", description: "Print a one-time code; the first private chat that sends the bot /start CODE within 10 minutes becomes the owner" },
  args: {},
  async run() {
    if (await refusedWhenDelegated("telegram pair")) return;
    const config = configured("telegram pair");
    if (!config) return;
    const telegram = config.channels.telegram;
    if (!telegram?.enabled) {
      process.stderr.write("scv channels telegram pair: no Telegram channel is configured; add\n  [channels.telegram]\n  enabled = true\nto $SCV_HOME/config.toml (the bot token comes from $TELEGRAM_BOT_TOKEN), then start the daemon\n");
      process.exitCode = 78;
      return;
    }
    const account = telegram.account;
    if (telegram.owner) {
      process.stderr.write(`scv channels telegram pair: the owner is set in [channels.telegram] owner (${telegram.owner}); remove that line to pair another account\n`);
      process.exitCode = 1;
      return;
    }
    const { newPairingCode, storedOwner } = await import("../channels/telegram/store");
    const home = scvHome();
    const before = storedOwner(home, account);
    const { code, expires } = newPairingCode(home, account);
    const until = new Date(expires).toISOString().slice(11, 16);
    process.stdout.write(
      `pairing code: ${code}\n` +
        `From your own Telegram account, open a private chat with the bot and send:\n  /start ${code}\n` +
        `The code works once, until ${until} UTC (10 minutes); the daemon must be running.` +
        (before ? ` The current owner (user ${before}) stays the owner until the code is used.` : "") +
        "\n",
    );
  },
});

const telegram = defineCommand({
  meta: { name: "telegram", description: "Telegram: `scv channels telegram pair` makes the owner" },
  subCommands: { pair },
});

export default defineCommand({
  meta: { name: "channels", description: "Chat channels the daemon hosts" },
  subCommands: { list, status, login, logout, telegram },
});
