// Depth-limited commands refuse in a delegated SCV; `scv daemon install` writes a systemd user unit.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daemonPaths } from "../../src/daemon/paths";
import { DelegatedRefusal, delegationDepthOf, refuseWhenDelegated } from "../../src/daemon/refuse";
import { installUnit, unitPath, unitText } from "../../src/daemon/systemd";
import { cli, tempHome } from "./fixtures/helpers";

describe("refuseWhenDelegated", () => {
  test("depth 0 or unset passes; a positive or malformed depth refuses with the action named", () => {
    expect(() => refuseWhenDelegated("start a daemon", {})).not.toThrow();
    expect(() => refuseWhenDelegated("start a daemon", { SCV_DELEGATION_DEPTH: "0" })).not.toThrow();
    expect(() => refuseWhenDelegated("manage channels", { SCV_DELEGATION_DEPTH: "2" })).toThrow(DelegatedRefusal);
    expect(() => refuseWhenDelegated("manage channels", { SCV_DELEGATION_DEPTH: "2" })).toThrow(/may not manage channels/);
    expect(delegationDepthOf({ SCV_DELEGATION_DEPTH: "junk" })).toBe(1);
    expect(delegationDepthOf({ SCV_DELEGATION_DEPTH: "-1" })).toBe(1);
  });

  test.each([
    [["daemon", "start"], "start a daemon"],
    [["daemon", "stop"], "stop a daemon"],
    [["daemon", "restart"], "restart a daemon"],
    [["daemon", "run"], "run a daemon"],
    [["daemon", "install"], "install a daemon"],
  ])("a delegated `scv %p` refuses", async (args, action) => {
    const home = tempHome();
    const r = await cli(args as string[], { SCV_HOME: home, SCV_DELEGATION_DEPTH: "1" });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`may not ${action}`);
    expect(existsSync(daemonPaths(home).socket)).toBe(false);
  });

  test("a delegated SCV may still read the daemon's status", async () => {
    const r = await cli(["daemon", "status"], { SCV_HOME: tempHome(), SCV_DELEGATION_DEPTH: "1" });
    expect(r.code).toBe(3); // not running, as systemctl status says it
    expect(r.stdout).toContain("not running");
  });
});

describe("systemd unit", () => {
  test("ExecStart runs the absolute binary with `daemon run`, quoted for systemd; SIGTERM reaches only the daemon", () => {
    const text = unitText({ command: ["/opt/my tools/scv"], scvHome: "/home/u/100%/.scv" });
    expect(text).toContain('ExecStart="/opt/my tools/scv" "daemon" "run"');
    expect(text).toContain('Environment="SCV_HOME=/home/u/100%%/.scv"');
    expect(text).toContain("KillMode=mixed");
    expect(text).toContain("WantedBy=default.target");
    expect(() => unitText({ command: ["scv"] })).toThrow(/absolute/);
  });

  test("install writes ~/.config/systemd/user/scv.service (XDG_CONFIG_HOME honoured)", () => {
    const home = tempHome();
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, "cfg") };
    const file = installUnit({ command: [process.execPath, "/abs/main.ts"], env });
    expect(file).toBe(join(home, "cfg", "systemd", "user", "scv.service"));
    expect(unitPath({ HOME: home })).toBe(join(home, ".config", "systemd", "user", "scv.service"));
    expect(readFileSync(file, "utf8")).toContain(`ExecStart="${process.execPath}" "/abs/main.ts" "daemon" "run"`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("without systemd, `scv daemon install` says so and writes nothing", async () => {
    const home = tempHome();
    // No systemctl on its PATH (only bun): systemd is absent for it on any machine, so the test runs everywhere.
    const bin = join(home, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, "bun"));
    const r = await cli(["daemon", "install"], { SCV_HOME: home, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PATH: bin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("systemd was not found");
    expect(existsSync(join(home, ".config", "systemd"))).toBe(false);
  });

  test("--print shows the unit and where it would go, writes nothing, with or without systemd", async () => {
    const home = tempHome();
    const r = await cli(["daemon", "install", "--print"], { SCV_HOME: home, HOME: home, XDG_CONFIG_HOME: join(home, ".config") });
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith(`# ${join(home, ".config", "systemd", "user", "scv.service")}`);
    expect(r.stdout).toContain("[Service]");
    expect(r.stdout).toMatch(/ExecStart=".*" "daemon" "run"/);
    expect(r.stdout).toContain(`Environment="SCV_HOME=${home}"`);
    expect(existsSync(join(home, ".config", "systemd"))).toBe(false);
  });
});

describe("the configuration check before a daemon starts", () => {
  /** A home whose dir channel works in `workspace`; `project` is that workspace's .scv/config.toml. */
  function channelHome(project?: string, workspace?: string) {
    const home = tempHome();
    const ws = workspace ?? join(home, "ws");
    mkdirSync(join(home, "chat"), { recursive: true });
    if (!workspace) mkdirSync(join(ws, ".scv"), { recursive: true });
    if (project !== undefined) writeFileSync(join(ws, ".scv", "config.toml"), project);
    writeFileSync(join(home, "config.toml"), `[channels]\nworkspace = "${ws}"\n[channels.dir]\npath = "${join(home, "chat")}"\nowner = "me"\n`);
    return home;
  }

  test.each([["start"], ["run"], ["restart"]])("scv daemon %s refuses (78) a channel workspace whose config would fail every chat message", async (command) => {
    const home = channelHome('[provider]\nactive = "elsewhere"\n');
    const r = await cli(["daemon", command], { SCV_HOME: home, HOME: home });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("every chat message would be answered with");
    expect(r.stderr).toContain("provider.active");
    expect(existsSync(daemonPaths(home).socket)).toBe(false);
  });

  test("a channel workspace that is not a directory, and a broken user file, are refused too", async () => {
    const missing = channelHome(undefined, "/nonexistent/scv-ws");
    const r = await cli(["daemon", "start"], { SCV_HOME: missing, HOME: missing });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("channels.workspace /nonexistent/scv-ws is not a directory");
    const broken = tempHome();
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, "config.toml"), "[tools]\ncomand_timeout_seconds = 5\n");
    const b = await cli(["daemon", "run"], { SCV_HOME: broken, HOME: broken });
    expect(b.code).toBe(78);
    expect(b.stderr).toContain("tools.comand_timeout_seconds");
  });
});
