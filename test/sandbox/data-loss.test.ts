// The data-loss table, through the compiled binary: in auto mode (the sandbox's auto_run, no --yes, stdin not a
// terminal, so a card is refused), each command that deletes or overwrites files in bulk must ask, and every file
// of the workspace, the ones checkpoints leave out included (`.env`, a gitignored file and folder, a 17 MiB file),
// must be byte-identical after. A recorded file's delete is the control that auto mode still runs unasked. Every
// workspace is a throwaway root under /var/tmp made here; nothing else is named by any command.
import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync, openSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const BASE = existsSync("/var/tmp") ? "/var/tmp" : "/tmp";
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const BIG = 17 * 1024 * 1024;

function layout(): { root: string; ws: string; env: Record<string, string> } {
  const root = mkdtempSync(join(BASE, "scv-data-loss-"));
  roots.push(root);
  const home = join(root, "home");
  const scvHome = join(root, "scv-home");
  const ws = join(root, "ws");
  for (const d of [home, scvHome, join(ws, "src"), join(ws, "build"), join(ws, "local"), join(ws, "empty")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(scvHome, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n`);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SCV_HOME: scvHome };
  const files: Record<string, string> = { "README": "hello\n", "notes.txt": "my notes\n", "src/main.c": "int main(void) { return 0; }\n", ".gitignore": "*.log\nlocal/\n" };
  for (const [rel, body] of Object.entries(files)) writeFileSync(join(ws, rel), body);
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: ws, env });
    if (!r.success) throw new Error(r.stderr.toString());
  };
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "start");
  // After the commit: an uncommitted change, and what git does not track (secret-like, ignored, large, recorded).
  writeFileSync(join(ws, "src/main.c"), "int main(void) { return 42; } // uncommitted\n");
  writeFileSync(join(ws, ".env"), "API_TOKEN=not-a-real-token\n");
  writeFileSync(join(ws, "app.log"), "ignored log line\n");
  writeFileSync(join(ws, "local/cache.txt"), "ignored folder\n");
  writeFileSync(join(ws, "build/out.o"), "object\n");
  writeFileSync(join(ws, "big.bin"), "");
  truncateSync(join(ws, "big.bin"), BIG); // sparse: 17 MiB of zeros, with marks at both ends
  const fd = openSync(join(ws, "big.bin"), "r+");
  writeSync(fd, "BIG-START", 0);
  writeSync(fd, "BIG-END", BIG - 7);
  closeSync(fd);
  return { root, ws, env };
}

/** Every file under the workspace but `.git`, by its SHA-256. */
function snapshot(ws: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(ws, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === ".git" && !rel) continue;
      if (e.isDirectory()) walk(r);
      else out.set(r, createHash("sha256").update(readFileSync(join(ws, r))).digest("hex"));
    }
  };
  walk("");
  return out;
}

interface Run {
  asked?: { reason: string; sandbox: string };
  completed?: { ok: boolean; sandbox: string };
}

async function run(command: string): Promise<Run & { ws: string; before: Map<string, string> }> {
  const { ws, env } = layout();
  const before = snapshot(ws);
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("done"));
  const scv = Bun.spawn([requireBinary(), "exec", "--json", "tidy up"], { cwd: ws, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(scv.stdout).text(), new Response(scv.stderr).text(), scv.exited]);
  const events = out.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { method: string; params: Record<string, any> });
  const asked = events.find((e) => e.method === "approval.requested" && e.params.summary.split("\n")[0] === `$ ${command}`);
  const completed = events.find((e) => e.method === "tool.completed");
  return {
    ws,
    before,
    ...(asked ? { asked: { reason: String(asked.params.guard?.reason), sandbox: String(asked.params.guard?.sandbox) } } : {}),
    ...(completed ? { completed: { ok: !!completed.params.ok, sandbox: String(completed.params.sandbox) } } : {}),
  };
}

/** The commands the issue names, each with a file it would destroy that rewind cannot bring back. */
const TABLE = [
  "rm -rf *",
  "find . -delete",
  "git clean -fdx",
  "rm -rf .env build",
  "git checkout -- .",
  "git reset --hard",
  "rsync -a --delete empty/ ./",
  "truncate -s 0 big.bin",
  ": > notes.txt",
];

test("auto mode: every bulk delete or overwrite asks, and the workspace is byte-identical after, .env, ignored and 17 MiB files included", async () => {
  const rows: string[] = [];
  const wrong: string[] = [];
  let files: string[] = [];
  for (const command of TABLE) {
    const r = await run(command);
    const after = snapshot(r.ws);
    files = [...r.before.keys()];
    const changed = [...r.before.keys()].filter((f) => after.get(f) !== r.before.get(f));
    rows.push(`| \`${command}\` | ${r.asked ? "asked" : "ran unasked"} | ${changed.length ? `changed: ${changed.join(", ")}` : `intact (${r.before.size} files byte-identical)`} | ${r.asked?.reason ?? ""} |`);
    if (!r.asked) wrong.push(`${command}: not asked`);
    if (changed.length) wrong.push(`${command}: changed ${changed.join(", ")}`);
    // The check is the reason it asked: inside the sandbox, auto_run would otherwise have run it.
    if (r.asked && r.asked.sandbox.startsWith("sandboxed")) expect(r.asked.reason).toMatch(/rewind|truncation/);
  }
  console.log(`data-loss table (auto mode, nobody to ask):\n| command | asked? | workspace after | card's reason |\n|---|---|---|---|\n${rows.join("\n")}`);
  expect(wrong).toEqual([]);
  // What each row protected holds what checkpoints leave out.
  for (const f of [".env", "app.log", "local/cache.txt", "big.bin", "src/main.c", "notes.txt"]) expect(files).toContain(f);
}, 240_000);

test("the control: deleting a file checkpoints record still runs unasked inside the sandbox", async () => {
  const r = await run("rm build/out.o");
  expect(r.asked).toBeUndefined();
  expect(r.completed).toEqual({ ok: true, sandbox: "workspace-write" });
  expect(existsSync(join(r.ws, "build/out.o"))).toBe(false);
  expect(existsSync(join(r.ws, ".env"))).toBe(true);
}, 60_000);
