// What SCV says about the sandbox: doctor's lines and self-test, scv status, the once-per-session notice, and the
// words for what a kernel cannot enforce (Landlock missing or too old, no namespaces).
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeEnforcement } from "../../src/sandbox/enforcement";
import { RISK_WORDS, riskInWords } from "../../src/scope";
import { requireBinary } from "../fake/binary";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function home(config = "") {
  const root = mkdtempSync(join(tmpdir(), "scv-sandbox-vis-"));
  roots.push(root);
  mkdirSync(join(root, "scv"));
  mkdirSync(join(root, "ws"));
  writeFileSync(join(root, "scv", "config.toml"), config);
  return { cwd: join(root, "ws"), env: { PATH: process.env.PATH!, HOME: root, SCV_HOME: join(root, "scv") } };
}

test("scv doctor reports the sandbox, what it enforces, and a self-test with every part blocked", () => {
  const h = home();
  const r = Bun.spawnSync([requireBinary(), "doctor"], { cwd: h.cwd, env: h.env });
  const out = r.stdout.toString();
  expect(out).toMatch(/^ok +sandbox: workspace-write \(Landlock ABI \d+, namespaces\); enforced: .*\.git and \.scv read-only/m);
  expect(out).toMatch(/^ok +sandbox self-test: a write outside the workspace: blocked; a read of a hidden path: blocked; a connect to 127\.0\.0\.1: blocked; a signal to SCV: blocked$/m);
  const status = Bun.spawnSync([requireBinary(), "status"], { cwd: h.cwd, env: h.env }).stdout.toString();
  expect(status).toMatch(/^sandbox: workspace-write \(Landlock ABI \d+, namespaces\); network: none \(\[sandbox\.network\] allow or presets open hosts through SCV's proxy\)$/m);
  expect(out).toMatch(/^ok +sandbox network: none/m);
}, 60_000);

test("mode off: doctor warns and says how to turn it on; status says commands run with your permissions", () => {
  const h = home(`[sandbox]\nmode = "off"\n`);
  const out = Bun.spawnSync([requireBinary(), "doctor"], { cwd: h.cwd, env: h.env }).stdout.toString();
  expect(out).toMatch(/^warning +sandbox: off \(\[sandbox\] mode = "off"\): commands run with your permissions\n +fix: set \[sandbox\] mode = "workspace-write"/m);
  const status = Bun.spawnSync([requireBinary(), "status"], { cwd: h.cwd, env: h.env }).stdout.toString();
  expect(status).toContain('sandbox: off ([sandbox] mode = "off")');
}, 60_000);

test("what a kernel lacks is said, never claimed", () => {
  const none = describeEnforcement({ mode: "workspace-write", network: false }, { landlockAbi: 0, namespaces: false, namespacesProblem: "unshare failed (EPERM)" });
  expect(none.available).toBe(false);
  expect(none.summary).toBe("no sandbox on this machine: the kernel offers neither Landlock nor namespaces");
  const old = describeEnforcement({ mode: "workspace-write", network: false }, { landlockAbi: 3, namespaces: false, namespacesProblem: "unshare failed (EPERM)" });
  expect(old.available).toBe(true);
  expect(old.missing.join("\n")).toContain("blocking the network (needs Landlock ABI 4 or a network namespace)");
  expect(old.missing.join("\n")).toContain("signal scoping (Landlock ABI 6)");
  expect(old.missing.join("\n")).toContain("namespaces (unshare failed (EPERM))");
  expect(old.enforced.join("\n")).not.toContain("no network");
  const abi5 = describeEnforcement({ mode: "workspace-write", network: false }, { landlockAbi: 5, namespaces: false });
  expect(abi5.enforced).toContain("no TCP (Landlock)");
  expect(abi5.missing.join("\n")).toContain("blocking UDP");
  const full = describeEnforcement({ mode: "read-only", network: true }, { landlockAbi: 7, namespaces: true, pidns: true });
  expect(full.missing).toEqual([]);
  expect(full.enforced.join("\n")).toContain("its own PID namespace");
  // Namespaces without a PID namespace (off x86_64): said missing, so `required = true` refuses.
  const noPidns = describeEnforcement({ mode: "read-only", network: true }, { landlockAbi: 7, namespaces: true });
  expect(noPidns.missing.join("\n")).toContain("a PID namespace");
  expect(full.summary).toBe("read-only (Landlock ABI 7, namespaces, network allowed)");
  // [sandbox.network]: the proxy where there are namespaces, said missing (no network at all) where not.
  const proxied = describeEnforcement({ mode: "workspace-write", network: false, egress: {} }, { landlockAbi: 7, namespaces: true });
  expect(proxied.summary).toBe("workspace-write (Landlock ABI 7, namespaces, network through the proxy)");
  expect(proxied.enforced.join("\n")).toContain("the network only through SCV's proxy");
  expect(proxied.enforced.join("\n")).not.toContain("no network at all");
  const noNs = describeEnforcement({ mode: "workspace-write", network: false, egress: {} }, { landlockAbi: 7, namespaces: false });
  expect(noNs.summary).not.toContain("proxy");
  expect(noNs.missing.join("\n")).toContain("the [sandbox.network] proxy (it needs namespaces): commands get no network");
});

test("the approval card's risk words say a sandboxed command runs inside the sandbox, and only then", () => {
  const inside = riskInWords("process", "sandboxed: workspace-write (Landlock ABI 7, namespaces)");
  expect(inside).toStartWith("runs a command on this machine inside the sandbox (workspace-write (Landlock ABI 7, namespaces))");
  expect(inside).not.toContain("not sandboxed");
  expect(riskInWords("process", "not sandboxed: asked to run outside the sandbox (needs the network)")).toBe(RISK_WORDS.process);
  expect(RISK_WORDS.process).toStartWith("runs a command on this machine, not sandboxed, with your permissions");
  expect(riskInWords("process")).toBe(RISK_WORDS.process);
});
