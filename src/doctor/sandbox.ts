// `scv doctor`'s sandbox lines: what the kernel lets SCV enforce under bash (Landlock ABI, namespaces), what it
// does not, and a self-test in the launcher (src/sandbox/self-test.ts) reported part by part.
import type { Config } from "../config/schema";
import { scvHome } from "../config/load";
import type { DoctorContext, DoctorLine } from "./checks";

export async function checkSandbox(ctx: DoctorContext, config: Config): Promise<DoctorLine[]> {
  const { enforcementFor, sandboxSettingsIn, sandboxStatusLine } = await import("../sandbox");
  const settings = sandboxSettingsIn(config.sandbox, { workspace: ctx.cwd, scvHome: scvHome(ctx.env), env: ctx.env });
  const text = sandboxStatusLine(settings).replace(/^sandbox: /, "");
  if (!settings) return [{ area: "sandbox", verdict: "warning", text, fix: 'set [sandbox] mode = "workspace-write" in your user config' }];
  const e = enforcementFor(settings);
  const lines: DoctorLine[] = [];
  if (!e.available || (settings.required && e.missing.length)) {
    lines.push({ area: "sandbox", verdict: "problem", text, fix: settings.required ? "run SCV on a kernel with Landlock (5.13+, ABI 6+ for signal scoping) and namespaces, or set [sandbox] required = false" : "run SCV on a kernel with Landlock (5.13+)" });
    return lines;
  }
  lines.push({ area: "sandbox", verdict: e.missing.length ? "warning" : "ok", text: `${e.summary}; enforced: ${e.enforced.join("; ")}${e.missing.length ? `; not enforced: ${e.missing.join("; ")}` : ""}`, ...(e.missing.length ? { fix: "a newer kernel (Landlock ABI 6+), or SCV run as a user allowed namespaces, enforces the rest" } : {}) });
  const { egressStatus } = await import("../sandbox");
  lines.push({ area: "sandbox network", verdict: "ok", text: egressStatus(settings, e.namespaces).replace(/^network: /, "") });
  try {
    const { sandboxSelfTest } = await import("../sandbox/self-test");
    const results = await sandboxSelfTest(settings);
    const open = results.filter((r) => !r.blocked && !(settings.network && r.what.includes("connect")));
    const said = results.map((r) => `${r.what}: ${r.blocked ? "blocked" : settings.network && r.what.includes("connect") ? "allowed ([sandbox] network = true)" : "NOT blocked"}`).join("; ");
    lines.push({ area: "sandbox self-test", verdict: open.length ? "problem" : "ok", text: said, ...(open.length ? { fix: "see the lines above for what this kernel cannot enforce" } : {}) });
  } catch (err) {
    lines.push({ area: "sandbox self-test", verdict: "problem", text: `could not run: ${(err as Error).message}`, fix: "run scv doctor again; if it persists, the launcher cannot start here" });
  }
  return lines;
}
