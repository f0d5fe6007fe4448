// `scv daemon install`: a systemd user unit that runs `scv daemon run`, on hosts that have systemd.
import { existsSync, mkdirSync } from "node:fs";
import { userHome } from "../user-home";
import { dirname, isAbsolute, join } from "node:path";
import { writePrivateFileAtomic } from "../process/delegation-records";

/** True when systemd is the running init and systemctl is installed. */
export function systemdAvailable(): boolean {
  return existsSync("/run/systemd/system") && !!Bun.which("systemctl");
}

export function unitPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configHome = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(userHome(env), ".config");
  return join(configHome, "systemd", "user", "scv.service");
}

// systemd unquotes "…" with C-style escapes and expands % specifiers and $VARIABLES, so escape all three.
function quote(arg: string): string {
  return `"${arg.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%").replace(/\$/g, "$$$$")}"`;
}

export interface UnitOptions {
  /** The absolute command that runs SCV (the binary, or bun plus the entry script). */
  command: string[];
  /** Written as Environment=SCV_HOME=… when the user chose a home other than the default. */
  scvHome?: string;
  /** Planned-stop bound in seconds; systemd waits a little longer before its own SIGKILL. */
  stopTimeoutSeconds?: number;
}

export function unitText(opts: UnitOptions): string {
  for (const part of opts.command.slice(0, 1)) {
    if (!isAbsolute(part)) throw new Error(`the unit needs an absolute executable path, got "${part}"`);
  }
  const stop = opts.stopTimeoutSeconds ?? 300;
  return [
    "[Unit]",
    "Description=SCV agent host daemon",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${[...opts.command, "daemon", "run"].map(quote).join(" ")}`,
    ...(opts.scvHome ? [`Environment=${quote(`SCV_HOME=${opts.scvHome}`)}`] : []),
    // SIGTERM goes to the daemon only: it waits for running delegations (a planned stop), then stops them itself.
    "KillMode=mixed",
    `TimeoutStopSec=${stop + 30}`,
    "Restart=on-failure",
    "RestartSec=5",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}

export function installUnit(opts: UnitOptions & { env?: Readonly<Record<string, string | undefined>> }): string {
  const file = unitPath(opts.env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
  writePrivateFileAtomic(file, unitText(opts));
  return file;
}
