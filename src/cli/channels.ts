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
    const rows = configuredAdapters(config, scvHome()).map((a) => ({ name: a.kind, kind: a.kind, account: a.account, owner: a.owner }));
    if (args.json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    if (!rows.length) return void process.stdout.write(NONE);
    for (const r of rows) process.stdout.write(`${r.kind}/${r.account}  owner ${r.owner}${r.kind === "dir" && config.channels.dir ? `  path ${config.channels.dir.path}` : ""}\n`);
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

export default defineCommand({
  meta: { name: "channels", description: "Chat channels the daemon hosts" },
  subCommands: { list, status },
});
