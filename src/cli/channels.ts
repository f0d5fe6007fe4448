// `scv channels list|status`: the chat channels configured in [channels.*], and what the daemon reports about
// each (state, queue depths, last error).
import { defineCommand } from "citty";
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
    const rows = adapters.map((a) => ({ name: a.kind, kind: a.kind, account: a.account, owner: a.owner }));
    if (args.json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    if (!rows.length) return void process.stdout.write(NONE);
    for (const r of rows) process.stdout.write(`${r.kind}/${r.account}  owner ${r.owner || "(none)"}${r.kind === "dir" && config.channels.dir ? `  path ${config.channels.dir.path}` : ""}\n`);
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
      const rows = configuredAdapters(config, scvHome()).map((a) => ({ name: a.kind, kind: a.kind, account: a.account, state: "stopped" }));
      if (args.json) return void process.stdout.write(`${JSON.stringify({ daemon: "not running", channels: rows }, null, 2)}\n`);
      if (!rows.length) return void process.stdout.write(NONE);
      process.stdout.write("the daemon is not running (start it with `scv daemon start`); its channels are stopped:\n");
      for (const r of rows) process.stdout.write(`${r.kind}/${r.account}  stopped\n`);
      writeOwnerHints(configuredAdapters(config, scvHome()));
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
    const { configuredAdapters } = await import("../channels/registry");
    writeOwnerHints(configuredAdapters(config, home));
  },
});

type Options = Record<string, string | true>;
type Io = import("../agents/login").Io;

/** Each platform's sign-in: the options `login` and `logout` take, and the module that runs them (lazily). */
const SIGN_INS: Record<string, { login: Record<string, "value" | "flag">; logout: Record<string, "value" | "flag">; load(): Promise<{ login(o: Options, io: Io): Promise<void>; logout(o: Options, io: Io): Promise<void> }> }> = {
  feishu: { login: { "app-id": "value", brand: "value", account: "value" }, logout: { account: "value" }, load: () => import("../channels/feishu/cli") },
};

/** `login|logout <platform> [options]`: options are read from rawArgs so an unknown one is refused. */
function platformArgs(action: "login" | "logout", rawArgs: string[]) {
  const [platform, ...rest] = rawArgs;
  const signIn = platform ? SIGN_INS[platform] : undefined;
  if (!signIn) throw new Error(`scv channels ${action}: name the platform: ${Object.keys(SIGN_INS).map((k) => `\`scv channels ${action} ${k}\``).join(", ")}${platform ? ` (not ${platform})` : ""}`);
  const allowed = signIn[action];
  const options: Options = {};
  for (let i = 0; i < rest.length; i++) {
    const [name, inline] = rest[i]!.replace(/^--/, "").split(/=(.*)/s, 2) as [string, string | undefined];
    const kind = rest[i]!.startsWith("--") ? allowed[name] : undefined;
    if (!kind) throw new Error(`scv channels ${action}: unknown option ${rest[i]}; options: ${Object.keys(allowed).map((k) => `--${k}`).join(", ") || "none"}`);
    if (kind === "flag") options[name] = true;
    else {
      const value = inline ?? rest[++i];
      if (!value) throw new Error(`scv channels ${action}: --${name} needs a value`);
      options[name] = value;
    }
  }
  return { signIn, options };
}

function platformCommand(action: "login" | "logout", description: string) {
  return defineCommand({
    meta: { name: action, description },
    async run({ rawArgs }) {
      try {
        const { signIn, options } = platformArgs(action, rawArgs);
        const module = await signIn.load();
        await module[action](options, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
      } catch (e) {
        const message = (e as Error).message;
        process.stderr.write(`${message.startsWith("scv ") ? "" : `scv channels ${action}: `}${message}\n`);
        process.exitCode = e instanceof ConfigError ? 78 : 1;
      }
    },
  });
}

const login = platformCommand("login", "Sign a chat channel in: `scv channels login feishu [--app-id cli_…] [--brand feishu|lark]`");
const logout = platformCommand("logout", "Remove a chat channel's stored sign-in: `scv channels logout feishu`");

export default defineCommand({
  meta: { name: "channels", description: "Chat channels the daemon hosts" },
  subCommands: { list, status, login, logout },
});
