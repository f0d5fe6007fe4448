// The sandbox's seams (issue 50), through the compiled binary with the scripted model: a lone git command, a
// home-directory workspace, a new .git or .scv, the host's Unix sockets, a hidden folder reached through a second
// mount, and a machine that enforces only part of the sandbox. Each attempt leaves evidence only if it got out.
// Everything lives in a throwaway root under /var/tmp (outside the private /tmp the sandbox shows), the home
// included; no attempt names a real path.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { needs } from "../fake/needs";

const fake = fakeModelForFile();
const BASE = existsSync("/var/tmp") ? "/var/tmp" : "/tmp";
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

interface Layout {
  root: string;
  home: string;
  scvHome: string;
  ws: string;
  outside: string;
  env: Record<string, string>;
}

function layout(opts: { git?: boolean; wsIsHome?: boolean; config?: string } = {}): Layout {
  const root = mkdtempSync(join(BASE, "scv-seams-"));
  roots.push(root);
  const home = join(root, "home");
  const scvHome = join(root, "scv-home");
  const ws = opts.wsIsHome ? home : join(root, "ws");
  const outside = join(root, "outside");
  for (const d of [home, scvHome, ws, outside, join(home, ".ssh")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), "SECRET-KEY\n");
  writeFileSync(
    join(scvHome, "config.toml"),
    `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n[tools]\nmax_steps = 100\n${opts.config ?? ""}`,
  );
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SCV_HOME: scvHome, XDG_RUNTIME_DIR: join(root, "run-user") };
  mkdirSync(env.XDG_RUNTIME_DIR);
  if (opts.git) {
    const git = (...args: string[]) => {
      const r = Bun.spawnSync(["git", ...args], { cwd: ws, env });
      if (!r.success) throw new Error(r.stderr.toString());
    };
    git("init", "-q");
    git("config", "user.email", "t@t");
    git("config", "user.name", "t");
    writeFileSync(join(ws, "README"), "hello\n");
    git("add", "-A");
    git("commit", "-qm", "start");
  }
  return { root, home, scvHome, ws, outside, env };
}

interface Run {
  asked: string[];
  results: { ok: boolean; out: string }[];
}

/** `scv exec --json` with one bash call per command; `--yes` stands for a client that approves everything. */
async function run(l: Layout, commands: string[], flags: string[] = [], wrap: (argv: string[]) => string[] = (a) => a): Promise<Run> {
  fake.clear();
  for (const command of commands) fake.queue(toolCalls([{ name: "bash", arguments: { command } }]));
  fake.queue(text("done"));
  const argv = wrap([requireBinary(), "exec", "--json", ...flags, "go"]);
  const scv = Bun.spawn(argv, { cwd: l.ws, env: l.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(scv.stdout).text(), new Response(scv.stderr).text(), scv.exited]);
  const events = out
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { method: string; params: Record<string, any> });
  if (!events.some((e) => e.method === "tool.completed")) throw new Error(`scv exec ran no call: ${err}`);
  return {
    asked: events.filter((e) => e.method === "approval.requested").map((e) => `${e.params.summary}\nwhy: ${e.params.guard?.reason ?? ""}`),
    results: events.filter((e) => e.method === "tool.completed").map((e) => ({ ok: !!e.params.ok, out: String(e.params.output ?? e.params.error ?? "") })),
  };
}

const files = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

test("a lone git command cannot get out, plant a hook or config, or make a repository, even with --yes; the commit forms models write work in one step", async () => {
  const l = layout({ git: true });
  const o = l.outside;
  const configBefore = readFileSync(join(l.ws, ".git", "config"), "utf8");
  const r = await run(
    l,
    [
      `git fetch --upload-pack="touch ${o}/upload-pack" .`,
      `mkdir -p t/hooks && printf '#!/bin/sh\\ntouch ${o}/template-hook\\n' > t/hooks/pre-commit && chmod +x t/hooks/pre-commit`,
      `git init --template=t`,
      `git -c core.fsmonitor="touch ${o}/dash-c" status`,
      `git config core.fsmonitor "touch ${o}/planted-fsmonitor"`,
      `git submodule foreach "touch ${o}/foreach"`,
      `printf '#!/bin/sh\\ntouch ${o}/hook\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`,
      `git add -A && git commit -qm "tidy; add t && more"`,
    ],
    ["--yes"],
  );
  // The person's own git, later, outside SCV: nothing planted runs.
  Bun.spawnSync(["git", "status"], { cwd: l.ws, env: l.env });
  Bun.spawnSync(["git", "commit", "--allow-empty", "-qm", "person"], { cwd: l.ws, env: l.env });
  expect(files(o)).toEqual([]);
  expect(readFileSync(join(l.ws, ".git", "config"), "utf8")).toBe(configBefore);
  expect(files(join(l.ws, ".git", "hooks")).filter((n) => !n.endsWith(".sample"))).toEqual([]);
  // git init is a person's call: refused where only --yes answers.
  expect(r.results[2]!.ok).toBe(false);
  expect(r.results[2]!.out).toContain("denied");
  expect(r.asked).toHaveLength(1);
  expect(r.asked[0]).toContain("$ git init --template=t");
  expect(r.asked[0]).toContain("only a person can approve it");
  const log = Bun.spawnSync(["git", "log", "--format=%s"], { cwd: l.ws, env: l.env }).stdout.toString().split("\n");
  expect(log.slice(0, 2)).toEqual(["person", "tidy; add t && more"]);
  expect(r.results[7]!.ok).toBe(true);
}, 60_000);

test("a .git or .scv a command creates where none was is set aside and said; a project file cannot turn checkpoints off", async () => {
  const l = layout();
  const r = await run(l, [
    `mkdir .git && printf '[core]\\n\\tfsmonitor = touch ${l.outside}/fsmonitor\\n' > .git/config && echo made`,
    `mkdir .scv && printf '[checkpoints]\\nenabled = false\\n' > .scv/config.toml && echo made`,
    "echo after > after.txt",
  ]);
  expect(r.asked).toEqual([]);
  expect(existsSync(join(l.ws, ".git"))).toBe(false);
  expect(existsSync(join(l.ws, ".scv"))).toBe(false);
  expect(r.results[0]!.out).toContain(".git, which a sandboxed command may not create");
  expect(r.results[1]!.out).toContain(".scv, which a sandboxed command may not create");
  const kept = files(join(l.scvHome, "set-aside"));
  expect(kept.some((n) => n.endsWith("-.git")) && kept.some((n) => n.endsWith("-.scv"))).toBe(true);
  expect(readFileSync(join(l.ws, "after.txt"), "utf8")).toBe("after\n");
  expect(files(l.outside)).toEqual([]);
}, 60_000);

test("a workspace that is the home keeps its start-up files, .config, .local/bin and git config read-only; its folders stay writable", async () => {
  const l = layout({ wsIsHome: true });
  writeFileSync(join(l.home, ".bashrc"), "# mine\n");
  mkdirSync(join(l.home, ".config"));
  mkdirSync(join(l.home, "notes"));
  writeFileSync(join(l.home, "notes", "list.md"), "milk\n");
  const r = await run(l, [
    `echo 'touch ${l.outside}/bashrc' >> .bashrc`,
    `mkdir -p .config/systemd/user && echo '[Service]' > .config/systemd/user/evil.service`,
    `printf '[core]\\n\\tfsmonitor = touch ${l.outside}/gitconfig\\n' > .gitconfig`,
    `mkdir -p .local/bin && printf '#!/bin/sh\\n' > .local/bin/git`,
    "touch .profile",
    "echo eggs >> notes/list.md",
  ]);
  expect(r.asked).toEqual([]);
  expect(readFileSync(join(l.home, ".bashrc"), "utf8")).toBe("# mine\n");
  for (const p of [".config/systemd", ".gitconfig", ".local", ".profile"]) expect(existsSync(join(l.home, p))).toBe(false);
  expect(readFileSync(join(l.home, "notes", "list.md"), "utf8")).toBe("milk\neggs\n");
  expect(r.results.slice(0, 5).map((x) => x.ok)).toEqual([false, false, false, false, false]);
}, 60_000);

test("the host's Unix sockets (the session bus in the runtime directory, any other) are out of reach unless listed", async () => {
  const l = layout({ config: "" });
  const bus = join(l.env.XDG_RUNTIME_DIR!, "bus");
  const app = join(l.outside, "app.sock");
  const allowed = join(l.root, "allowed.sock");
  writeFileSync(join(l.scvHome, "config.toml"), `${readFileSync(join(l.scvHome, "config.toml"), "utf8")}[sandbox]\nallow_unix_sockets = ["${allowed}"]\n`);
  const got = new Set<string>();
  const listeners = [bus, app, allowed].map((path) => Bun.listen({ unix: path, socket: { data: (_s, d) => void got.add(d.toString()) } }));
  try {
    const dial = (path: string, token: string) => `node -e 'const s=require("net").connect(process.argv[1],()=>{s.end(process.argv[2])});s.on("error",()=>{})' ${path} ${token}`;
    await run(l, [`${dial(bus, "bus")}; ${dial(app, "app")}; ${dial(allowed, "allowed")}; sleep 0.5`]);
    // The allowed socket's bytes arrive when this process gets to them (waited for); the refused ones never do.
    for (const end = Date.now() + 25_000; !got.has("allowed") && Date.now() < end; ) await Bun.sleep(20);
    await Bun.sleep(200);
    expect([...got].sort()).toEqual(["allowed"]);
  } finally {
    for (const s of listeners) s.stop(true);
  }
}, 60_000);

for (const namespaces of [true, false]) {
  test.skipIf(!needs("root"))(`a hidden folder is hidden through a second mount of it too (a bind mount of the home; ${namespaces ? "namespaces" : "Landlock alone"})`, async () => {
    const l = layout();
    if (!namespaces) landlockOnly(l);
    const alias = join(l.root, "data-home");
    mkdirSync(alias);
    // The bind mount lives in a mount namespace of the test's own, gone with it.
    const wrap = (argv: string[]) => ["unshare", "-m", "--propagation", "private", "sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"', "sh", l.home, alias, ...argv];
    const r = await run(l, [`cat ${alias}/.ssh/id_rsa > ev; cat ${alias}/.ssh/id_rsa; cat ${alias}/.ssh/../.ssh/id_rsa`], [], wrap);
    expect(r.results[0]!.out).not.toContain("SECRET-KEY");
    expect(existsSync(join(l.ws, "ev")) ? readFileSync(join(l.ws, "ev"), "utf8") : "").not.toContain("SECRET-KEY");
  }, 60_000);
}

/** Writes the probe's kept answer as a machine with Landlock and no namespaces would give it. */
function landlockOnly(l: Layout): void {
  const bin = requireBinary();
  const st = statSync(bin);
  const key = `${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()} ${bin} ${st.size} ${st.mtimeMs} `;
  mkdirSync(join(l.scvHome, "state"), { recursive: true });
  writeFileSync(join(l.scvHome, "state", "sandbox-support.json"), JSON.stringify({ key, support: { landlockAbi: 7, namespaces: false, namespacesProblem: "unshare failed (EPERM)" } }));
}

test("where the machine enforces only part of the sandbox, auto_run does not run commands unasked and the card says what is missing; a git write asks a person", async () => {
  const l = layout({ git: true });
  landlockOnly(l);
  const r = await run(l, ["touch README", `git commit --allow-empty -qm "x"`], ["--yes"]);
  // --yes answers the first; the git write is a person's call, which --yes is not: its card waits for one.
  expect(r.asked).toHaveLength(1);
  expect(r.asked[0]).toContain("only a person can approve it");
  expect(r.results[0]!.ok).toBe(true);
  expect(r.results[1]!.ok).toBe(false);
  const plain = await run(l, ["touch other.txt"]);
  expect(plain.asked).toHaveLength(1);
  expect(plain.asked[0]).toContain("sandboxed: workspace-write (Landlock ABI 7, no namespaces)");
  expect(plain.asked[0]).toContain("this machine enforces only part of the sandbox (not enforced: ");
  expect(plain.results[0]!.ok).toBe(false);
  expect(existsSync(join(l.ws, "other.txt"))).toBe(false);
}, 60_000);
