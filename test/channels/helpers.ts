// The chat bridge through the real daemon: dist/scv daemon run with a temp SCV_HOME, the fake model endpoint,
// and a `dir` channel whose in/ and out/ directories the test writes and reads like a chat platform would.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { daemonFetch, probeDaemon } from "../../src/daemon/client";
import { reconcile } from "../../src/process/reconcile";
import { fakeHome, requireBinary } from "../fake/binary";

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface Bridge {
  root: string;
  home: string;
  workspace: string;
  chat: string;
  env: Record<string, string>;
  daemon?: Bun.Subprocess<"ignore", "pipe", "pipe">;
  logText(): string;
}

const bridges: Bridge[] = [];

export function makeBridge(modelUrl: string, extra = ""): Bridge {
  const owner = "owner-1";
  const base = fakeHome(modelUrl);
  const root = dirname(base.home);
  const chat = join(root, "chat");
  mkdirSync(chat, { recursive: true });
  mkdirSync(base.env.HOME!, { recursive: true });
  const config = readFileSync(join(base.home, "config.toml"), "utf8");
  writeFileSync(
    join(base.home, "config.toml"),
    `${config}[channels]\nworkspace = "${base.workspace}"\nsend_retry_seconds = 0.3\nsend_max_attempts = 4\n${extra}\n[channels.dir]\npath = "${chat}"\nowner = "${owner}"\n`,
  );
  let log = "";
  const bridge: Bridge = { root, home: base.home, workspace: base.workspace, chat, env: base.env, logText: () => log };
  (bridge as { appendLog?: (s: string) => void }).appendLog = (s) => (log += s);
  bridges.push(bridge);
  return bridge;
}

export async function startDaemon(b: Bridge): Promise<void> {
  const proc = Bun.spawn([requireBinary(), "daemon", "run"], { cwd: b.root, env: b.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  b.daemon = proc;
  const append = (b as { appendLog?: (s: string) => void }).appendLog!;
  void (async () => {
    for await (const chunk of proc.stdout) append(new TextDecoder().decode(chunk));
  })();
  void (async () => {
    for await (const chunk of proc.stderr) append(new TextDecoder().decode(chunk));
  })();
  // A daemon that ends on its own says so in the log every wait prints (a browser test once lost its daemon
  // with no word of how).
  void proc.exited.then((code) => {
    if (b.daemon === proc) append(`\n[test] the daemon (pid ${proc.pid}) exited by itself: code ${code}, signal ${proc.signalCode ?? "none"}\n`);
  });
  await waitFor(async () => (await probeDaemon(b.home, 300)).state === "running", 25_000, `the daemon to start; log:\n${b.logText()}`);
}

export async function killDaemon(b: Bridge, signal: "SIGKILL" | "SIGTERM" = "SIGKILL"): Promise<void> {
  const daemon = b.daemon;
  if (!daemon) return;
  b.daemon = undefined; // before the kill: this end is the test's, not the daemon's own
  daemon.kill(signal);
  await daemon.exited;
}

let counter = 0;

/** Writes a message into in/ atomically (a dot-file renamed into place), as the channel expects. */
export function sendMessage(b: Bridge, msg: { id?: string; from?: string; text: string; files?: string[] }, name?: string): string {
  const id = msg.id ?? `m${++counter}`;
  const inbox = join(b.chat, "in");
  mkdirSync(inbox, { recursive: true });
  const file = name ?? `${String(Date.now()).padStart(15, "0")}-${String(counter).padStart(4, "0")}-${id}.json`;
  writeFileSync(join(inbox, `.${file}.tmp`), JSON.stringify({ id, from: msg.from ?? "owner-1", text: msg.text, files: msg.files ?? [] }));
  renameSync(join(inbox, `.${file}.tmp`), join(inbox, file));
  return id;
}

export interface OutMessage {
  id: string;
  to: string;
  text: string;
  files: string[];
  in_reply_to?: string;
}

export function outMessages(b: Bridge): OutMessage[] {
  let names: string[] = [];
  try {
    names = readdirSync(join(b.chat, "out")).filter((n) => n.endsWith(".json") && !n.startsWith("."));
  } catch {}
  return names.map((n) => JSON.parse(readFileSync(join(b.chat, "out", n), "utf8")) as OutMessage).sort((a, b) => (a.id < b.id ? -1 : 1));
}

export async function waitForOut(b: Bridge, count: number, timeoutMs = 25_000): Promise<OutMessage[]> {
  await waitFor(() => outMessages(b).length >= count, timeoutMs, `${count} message(s) in out/; have ${JSON.stringify(outMessages(b))}; log:\n${b.logText()}`);
  return outMessages(b);
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

export async function channelStatus(b: Bridge): Promise<any[]> {
  const res = await daemonFetch(b.home, "/channels");
  return ((await res.json()) as { channels: any[] }).channels;
}

export async function cleanupBridges(): Promise<void> {
  for (const b of bridges.splice(0)) {
    await killDaemon(b);
    // A daemon `scv daemon restart` started runs detached: stop it by the pid it reports.
    const probe = await probeDaemon(b.home, 500);
    if (probe.state === "running") {
      try {
        process.kill(probe.health.pid, "SIGKILL");
      } catch {}
      await waitFor(() => !exists(probe.health.pid), 25_000, "the restarted daemon to exit").catch(() => {});
    }
    await reconcile(b.home, { graceMs: 200 });
    rmSync(b.root, { recursive: true, force: true });
  }
}
