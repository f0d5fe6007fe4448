// Ordinary work inside the sandbox, through the compiled binary, as root and as an ordinary user (a throwaway uid
// with no_new_privs, which gets the same namespaces inside a user namespace of its own): a new file and folder at
// the workspace's top level, `npm test`, `git status`, a build writing ./dist, `mktemp` then a copy into the
// workspace; the command sees its own uid. All unasked (auto_run), nothing asked, nothing refused.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { needs } from "../fake/needs";
import { fakeModelForFile, binaryForAnyUser, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const BASE = existsSync("/var/tmp") ? "/var/tmp" : "/tmp";
const ORDINARY_UID = 47012;
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

// As root; as an ordinary user; and as that user already inside a user namespace of its own (`unshare -Ur`, as in a
// container or a CI runner), where SCV is root of that namespace and nests its namespaces in it.
for (const [uid, nested] of [[undefined, false], [ORDINARY_UID, false], [ORDINARY_UID, true]] as const) {
  test.skipIf(!needs("root"))(`ordinary work runs unasked inside the sandbox ${uid === undefined ? "as root" : `as an ordinary user (uid ${uid})${nested ? " inside a user namespace" : ""}`}`, async () => {
    const root = mkdtempSync(join(BASE, "scv-ordinary-"));
    roots.push(root);
    const home = join(root, "home");
    const scvHome = join(root, "scv-home");
    const ws = join(root, "ws");
    for (const d of [home, scvHome, ws, join(home, ".ssh")]) mkdirSync(d, { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "SECRET-KEY\n");
    writeFileSync(join(scvHome, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n`);
    writeFileSync(join(ws, "package.json"), JSON.stringify({ name: "w", version: "1.0.0", scripts: { test: "node -e \"console.log('1 test passed')\"" } }));
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SCV_HOME: scvHome };
    const git = Bun.spawnSync(["git", "init", "-q", ws], { env });
    if (!git.success) throw new Error(git.stderr.toString());
    if (uid !== undefined) Bun.spawnSync(["chown", "-R", `${uid}:${uid}`, root]);
    const steps = [
      "touch NOTES.md && mkdir build && echo made",
      "npm test",
      "git status --short",
      "mkdir -p dist && echo 'console.log(1)' > dist/app.js && node dist/app.js",
      "mktemp && echo scratch > /tmp/scratch.txt && cp /tmp/scratch.txt copied.txt && cat copied.txt",
      "id -u",
      `ls ${home}/.ssh | wc -l`,
    ];
    fake.clear();
    for (const command of steps) fake.queue(toolCalls([{ name: "bash", arguments: { command } }]));
    fake.queue(text("done"));
    const argv = [uid === undefined ? requireBinary() : binaryForAnyUser(), "exec", "--json", "go"];
    const asUser = ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--no-new-privs", ...(nested ? ["unshare", "-Ur"] : [])];
    const scv = Bun.spawn(uid === undefined ? argv : [...asUser, ...argv], { cwd: ws, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(scv.stdout).text(), new Response(scv.stderr).text(), scv.exited]);
    const events = out.trim().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { method: string; params: Record<string, any> });
    const done = events.filter((e) => e.method === "tool.completed").map((e) => ({ ok: !!e.params.ok, sandbox: e.params.sandbox, out: String(e.params.output ?? "") }));
    const asked = events.filter((e) => e.method === "approval.requested");
    const started = events.filter((e) => e.method === "tool.started").map((e) => String(e.params.guard?.sandbox ?? ""));
    if (done.some((d) => !d.ok)) console.log(err, done.map((d) => d.out).join("\n---\n"));
    expect(asked).toEqual([]);
    expect(done.map((d) => [d.ok, d.sandbox])).toEqual(Array(steps.length).fill([true, "workspace-write"]));
    expect(started[0]).toContain(uid === undefined || nested ? "namespaces" : "namespaces in a user namespace");
    expect(done[1]!.out).toContain("1 test passed");
    expect(done[4]!.out).toContain("scratch");
    expect(done[5]!.out.trim().split("\n").at(-1)).toBe(String(nested ? 0 : (uid ?? 0)));
    expect(done[6]!.out.trim().split("\n").at(-1)).toBe("0");
    expect(readFileSync(join(ws, "copied.txt"), "utf8")).toBe("scratch\n");
    for (const p of ["NOTES.md", "build", "dist/app.js"]) expect(existsSync(join(ws, p))).toBe(true);
  }, 60_000);
}
