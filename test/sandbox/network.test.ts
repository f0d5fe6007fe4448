// The network of sandboxed commands through SCV's egress proxy, through the compiled binary, as root and as an
// ordinary user: loopback stand-ins for the outside hosts, named by the proxy's test resolver
// (`[sandbox.network] hosts_file`). curl (plain, CONNECT, SOCKS5), Bun's fetch and git over http reach the allowed
// host, and npm installs from a registry stand-in; a refused host, a Host header naming one, an allowed name resolving to a private address and programs that
// ignore the proxy variables and dial directly do not; the call's result names the refused host, and
// `scv sandbox log` lists the decisions.
import { needs } from "../fake/needs";
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile, binaryForAnyUser, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const BASE = existsSync("/var/tmp") ? "/var/tmp" : "/tmp";
const ORDINARY_UID = 47013;
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** A loopback web server standing in for registry.test: a greeting, and a bare git repository served as files (git's dumb HTTP). */
function standIn(root: string) {
  const repo = join(root, "served", "repo.git");
  const work = join(root, "src-repo");
  mkdirSync(work, { recursive: true });
  const git = (args: string[], cwd: string) => {
    const r = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH!, HOME: root, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    if (!r.success) throw new Error(r.stderr.toString());
  };
  git(["init", "-q"], work);
  writeFileSync(join(work, "README"), "served over http\n");
  git(["add", "README"], work);
  git(["commit", "-qm", "one"], work);
  git(["clone", "-q", "--bare", work, repo], root);
  git(["update-server-info"], repo);
  // An npm registry stand-in: one package, its packument naming a tarball on the same host.
  const pkg = join(root, "pkg", "package");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "tiny-odd", version: "1.0.0", main: "index.js" }));
  writeFileSync(join(pkg, "index.js"), "module.exports = (n) => n % 2 === 1;\n");
  const tgz = join(root, "served", "tiny-odd-1.0.0.tgz");
  if (!Bun.spawnSync(["tar", "czf", tgz, "-C", join(root, "pkg"), "package"]).success) throw new Error("tar failed");
  const shasum = new Bun.CryptoHasher("sha1").update(readFileSync(tgz)).digest("hex");
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      const path = new URL(r.url).pathname;
      if (path.startsWith("/repo.git/")) {
        const file = Bun.file(join(root, "served", path));
        return (await file.exists()) ? new Response(file) : new Response("no", { status: 404 });
      }
      if (path === "/tiny-odd") {
        const tarball = `http://${r.headers.get("host")}/tiny-odd/-/tiny-odd-1.0.0.tgz`;
        return Response.json({ name: "tiny-odd", "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": { name: "tiny-odd", version: "1.0.0", main: "index.js", dist: { tarball, shasum } } } });
      }
      if (path === "/tiny-odd/-/tiny-odd-1.0.0.tgz") return new Response(Bun.file(tgz));
      return new Response(`hello ${r.headers.get("host")} ${path}\n`);
    },
  });
  cleanup.push(() => server.stop(true));
  return server.port as number;
}

for (const uid of [undefined, ORDINARY_UID]) {
  test.skipIf(!needs("root"))(`allowed hosts through the proxy, everything else refused ${uid === undefined ? "as root" : `as an ordinary user (uid ${uid})`}`, async () => {
    const root = mkdtempSync(join(BASE, "scv-network-"));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    const home = join(root, "home");
    const scvHome = join(root, "scv-home");
    const ws = join(root, "ws");
    for (const d of [home, scvHome, ws]) mkdirSync(d, { recursive: true });
    const port = standIn(root);
    // A service on the host's own loopback that the allowlist does not name.
    const hostService = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("HOST SERVICE\n") });
    cleanup.push(() => hostService.stop(true));
    const hostOnly = hostService.port as number;
    writeFileSync(join(root, "hosts"), "127.0.0.1 registry.test evil.test\n127.0.0.2 private.test\n");
    writeFileSync(
      join(scvHome, "config.toml"),
      `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n` +
        `[sandbox.network]\nallow = ["registry.test", "private.test", "127.0.0.1:${port}"]\nallow_private = true\nhosts_file = "${join(root, "hosts")}"\n`,
    );
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SCV_HOME: scvHome };
    if (uid !== undefined) Bun.spawnSync(["chown", "-R", `${uid}:${uid}`, root]);
    const url = `http://registry.test:${port}`;
    const steps = [
      `curl -sS ${url}/plain`,
      `curl -sS -p ${url}/tunnel`,
      `curl -sS --socks5-hostname 127.0.0.1:43128 ${url}/socks`,
      `bun -e 'console.log(await (await fetch("${url}/fetch")).text())'`,
      `git clone -q ${url}/repo.git clone && cat clone/README`,
      `npm install --no-audit --no-fund --cache /tmp/npm-cache --registry ${url}/ tiny-odd >/dev/null && node -e 'console.log("odd", require("tiny-odd")(3))'`,
      `curl -sS http://evil.test:${port}/x; curl -sS -o /dev/null -w "%{http_code}\\n" -p http://evil.test:${port}/x`,
      `git ls-remote http://evil.test:${port}/repo.git 2>&1 | tail -1; npm view --cache /tmp/npm-cache --registry http://evil.test:${port}/ tiny-odd 2>&1 | grep -m1 -o "403 Forbidden"; bun -e 'console.log("bun", (await fetch("http://evil.test:${port}/")).status)'`,
      `curl -sS -H "Host: evil.test" ${url}/h`,
      `curl -sS -p http://private.test:${port}/; echo "rc=$?"`,
      `curl -sS --noproxy "*" --max-time 5 http://127.0.0.1:${port}/direct; echo "rc=$?"`,
      `node -e 'require("net").connect(${port}, "127.0.0.1").on("error", (e) => console.log("direct", e.code)).on("connect", () => console.log("CONNECTED"))'`,
      // NO_PROXY sends loopback names straight to the namespace's own loopback; here they are sent to the proxy.
      `unset NO_PROXY no_proxy; curl -sS -p http://127.0.0.1:${hostOnly}/; curl -sS -p http://localhost:${hostOnly}/; curl -sS -p http://[::1]:${port}/`,
      `node -e 'require("net").connect(80, "192.0.2.1").on("error", (e) => console.log("outside", e.code)).on("connect", () => console.log("CONNECTED"))'`,
    ];
    fake.clear();
    for (const command of steps) fake.queue(toolCalls([{ name: "bash", arguments: { command } }]));
    fake.queue(text("done"));
    const argv = [uid === undefined ? requireBinary() : binaryForAnyUser(), "exec", "--json", "go"];
    const scv = Bun.spawn(uid === undefined ? argv : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--no-new-privs", ...argv], { cwd: ws, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(scv.stdout).text(), new Response(scv.stderr).text(), scv.exited]);
    const events = out.trim().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { method: string; params: Record<string, any> });
    const done = events.filter((e) => e.method === "tool.completed").map((e) => String(e.params.output ?? ""));
    if (done.length !== steps.length) console.log(err, out);
    expect(done.length).toBe(steps.length);
    const [plain, tunnel, socks, fetched, clone, npm, evil, evilTools, hostHeader, priv, direct, nodeDirect, hostLoopback, outside] = done as [string, ...string[]];
    expect(plain).toContain(`hello registry.test:${port} /plain`);
    expect(tunnel).toContain(`hello registry.test:${port} /tunnel`);
    expect(socks).toContain(`hello registry.test:${port} /socks`);
    expect(fetched).toContain(`hello registry.test:${port} /fetch`);
    expect(clone).toContain("served over http");
    expect(npm).toContain("odd true");
    expect(evil).toContain("not in [sandbox.network] allow");
    expect(evil).toContain("403");
    // The call's result names the refused host and how it can be allowed, from the proxy's own record.
    expect(evil).toContain(`the sandbox's network proxy refused evil.test:${port}`);
    expect(evil).toContain("Only a person can allow it");
    expect(evilTools).toMatch(/git.*403|403.*git|unable to access/i);
    expect(evilTools).toContain("403 Forbidden");
    expect(evilTools).toContain("bun 403");
    expect(hostHeader).toContain("does not name the URL's host");
    expect(priv).toContain("private.test resolves to 127.0.0.2");
    expect(direct).toMatch(/rc=(7|28)/);
    expect(nodeDirect).toMatch(/direct (ECONNREFUSED|EACCES)/);
    // Nothing reaches the host's own loopback services through the proxy but what is listed (127.0.0.1:port).
    expect(hostLoopback).not.toContain("HOST SERVICE");
    expect(hostLoopback).toContain(`127.0.0.1:${hostOnly} not in [sandbox.network] allow`);
    expect(hostLoopback).toContain(`localhost:${hostOnly} not in [sandbox.network] allow`);
    expect(hostLoopback).toContain(`::1:${port} not in [sandbox.network] allow`);
    expect(outside).toMatch(/outside (ENETUNREACH|EACCES|EPERM)/);
    for (const d of done) expect(d).not.toContain("CONNECTED");
    // Nothing of the proxy's setup is taken for a process the command left running.
    for (const d of done) expect(d).not.toContain("background process");
    const log = Bun.spawnSync([requireBinary(), "sandbox", "log", "--since", "1h"], { env, stdout: "pipe", stderr: "pipe" });
    const listed = log.stdout.toString();
    expect(listed).toMatch(/allowed +registry\.test:\d+ \(CONNECT\)/);
    expect(listed).toMatch(/refused +evil\.test:\d+ \(GET\)/);
    expect(listed).toContain("command: curl -sS http://evil.test");
    expect(readFileSync(join(scvHome, "state", "sandbox-network.jsonl"), "utf8")).toContain('"session"');
    const status = Bun.spawnSync([requireBinary(), "status"], { cwd: ws, env, stdout: "pipe" }).stdout.toString();
    expect(status).toContain(`network: through SCV's egress proxy`);
    expect(status).toContain(`allowed: registry.test, private.test, 127.0.0.1:${port}`);
  }, 90_000);
}
