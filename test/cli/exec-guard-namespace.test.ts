// Destructive payloads against the real spellings of a home directory (`~`, `~root`, `~$(whoami)`, `$HOME`,
// `/home/*`), through the compiled binary with --yes: every one is refused and nothing is deleted. They run only
// inside a user+mount+network namespace where the machine's root file system is read-only, /root and /home are
// empty tmpfs mounts holding a few files to lose, and the scripted model listens on the namespace's own
// loopback. So even the code before the fix (which ran several of these) could only ever empty those tmpfs
// mounts, never a real home. Skipped where unprivileged namespaces are not available.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { needs } from "../fake/needs";

const MODEL = join(import.meta.dir, "..", "fake", "model-server.ts");
const PORT = 18_938; // the namespace has its own loopback, so any port is free there

const PAYLOADS = [
  "find ~ -mindepth 1 -delete",
  "rm -rf ~root",
  "rm -rf ~$(whoami)",
  'rm -rf "$HOME"/',
  "rm -rf /home/*",
  "git clean -fdx ~",
  "shred -u ~/*",
  "chmod -R 000 ~",
  "cd ~ && rm -rf ./*",
];

/** Runs inside the namespace: mounts, files to lose, the model on loopback, then `scv exec --yes`. */
const INSIDE = `set -e
R="$1"
mount --bind "$R" "$R"
mount -o remount,bind,ro /
mount -t tmpfs tmpfs /root
mount -t tmpfs tmpfs /home
ip link set lo up
mkdir -p /root/keep /root/.ssh /home/alice/keep "$R/tmp"
echo mine > /root/keep/file; echo key > /root/.ssh/id_ed25519; echo hers > /home/alice/keep/file
# The proof that the root file system is read-only here: this must fail.
if touch /usr/scv-namespace-probe 2>/dev/null; then echo "root is writable" > "$R/unsafe"; exit 3; fi
export HOME=/root TMPDIR="$R/tmp"
bun "$2" --script "$R/replies.json" --port ${PORT} > "$R/url" 2> "$R/model.err" &
MODEL_PID=$!
for i in $(seq 100); do [ -s "$R/url" ] && break; sleep 0.1; done
cd "$R/ws"
SCV_HOME="$R/scv-home" "$3" exec --json --yes "clean up my home" > "$R/out.jsonl" 2> "$R/err.txt" || true
kill $MODEL_PID 2>/dev/null || true
wait $MODEL_PID 2>/dev/null || true
# Bun's own cache under the tmpfs home is not one of the files to lose.
find /root /home -path /root/.bun -prune -o -type f -print | sort > "$R/left.txt"
`;

test.skipIf(!needs("user namespaces"))("every spelling of a home directory is refused under --yes, and the home keeps its files", () => {
  const root = mkdtempSync(join(tmpdir(), "scv-ns-guard-"));
  try {
    mkdirSync(join(root, "ws"));
    mkdirSync(join(root, "scv-home"));
    writeFileSync(
      join(root, "scv-home", "config.toml"),
      `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "http://127.0.0.1:${PORT}/v1"\nmodel = "fake-model"\nmax_retries = 0\n[sandbox]\nmode = "off"\n`,
    );
    const calls = PAYLOADS.map((command) => ({ name: "bash", arguments: { command } }));
    writeFileSync(join(root, "replies.json"), JSON.stringify([toolCalls(calls), text("I could not.")]));
    const r = Bun.spawnSync(["unshare", "-Urmn", "sh", "-c", INSIDE, "inside", root, MODEL, requireBinary()], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH! } });
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
    const started = readFileSync(join(root, "out.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.method === "tool.started").map((e) => e.params);
    expect(started.map((p) => [p.label, p.guard.decision])).toEqual(PAYLOADS.map((c) => [`$ ${c}`, "block"]));
    expect(readFileSync(join(root, "left.txt"), "utf8").trim().split("\n")).toEqual(["/home/alice/keep/file", "/root/.ssh/id_ed25519", "/root/keep/file"]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 60_000);
