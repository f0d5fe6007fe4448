// The sandbox on the Live page: how the daemon's chat workspace runs bash (the line `scv status` and the TUI's
// /status show, made the same way), the hosts its egress proxy allows and denies, and the proxy's recent refusals
// as `scv sandbox log` lists them. `GET /api/sandbox`, behind the same gate as every other request (cookie and
// page key); the page's script shows it as text.
import type { Hono } from "hono";
import { configuredSecrets } from "../../config/configured-secrets";
import { scrubSecrets } from "../../text/scrub";
import { userHome } from "../../user-home";
import type { WebContext, WebEnv } from "../context";

/** How far back the page looks, and how many refusals it lists (newest first); `scv sandbox log` has the rest. */
const RECENT_MS = 24 * 3600_000;
const SHOWN_REFUSALS = 20;

export interface SandboxView {
  /** The words of `scv status` and /status for the same workspace. */
  status: string;
  /** Sandboxed commands reach the network only through SCV's egress proxy (a `[sandbox.network]` table, enforced here). */
  proxy: boolean;
  /** The hosts the proxy lets through: `preset NAME` for a preset, then the patterns of `allow` and the grants. */
  allowed: string[];
  denied: string[];
  /** `mode = "read"`. */
  read_only: boolean;
  /** The decisions of the last 24 hours. */
  counts: { allowed: number; refused: number };
  /** The latest refusals, newest first. */
  refused: { time: string; host: string; port: number; via: string; reason?: string; session?: string; command?: string }[];
}

async function sandboxView(ctx: WebContext): Promise<SandboxView> {
  const workspace = ctx.config.channels.workspace ?? userHome(ctx.env);
  const { loadConfig } = await import("../../config/load");
  const { enforcementFor, sandboxSettingsIn, sandboxStatusLine } = await import("../../sandbox");
  const { egressSummary } = await import("../../sandbox/egress-log");
  const clean = (text: string) => scrubSecrets(text, configuredSecrets(ctx.config, ctx.env));
  const recent = egressSummary(ctx.scvHome, Date.now() - RECENT_MS, SHOWN_REFUSALS);
  const view: SandboxView = {
    status: "",
    proxy: false,
    allowed: [],
    denied: [],
    read_only: false,
    counts: { allowed: recent.allowed, refused: recent.refused },
    refused: recent.latest.map((e) => ({ ...e, ...(e.reason ? { reason: clean(e.reason) } : {}), ...(e.command ? { command: clean(e.command) } : {}) })),
  };
  try {
    // As /status makes its line: the configuration as it is now, for the workspace the daemon's chats run in.
    const { config } = loadConfig({ cwd: workspace, env: ctx.env });
    const settings = sandboxSettingsIn(config.sandbox, { workspace, scvHome: ctx.scvHome, env: ctx.env });
    view.status = sandboxStatusLine(settings);
    const egress = settings?.egress;
    if (settings && egress && !settings.network) {
      const e = enforcementFor(settings);
      view.proxy = e.available && e.namespaces;
      view.allowed = [...egress.presets.map((p) => `preset ${p}`), ...egress.allow.filter((p) => !p.preset).map((p) => p.text)];
      view.denied = egress.deny.map((p) => p.text);
      view.read_only = egress.readOnly;
    }
  } catch (e) {
    view.status = `sandbox: unknown (${(e as Error).message.split("\n")[0]})`;
  }
  return view;
}

export function registerSandbox(app: Hono<WebEnv>, ctx: WebContext): void {
  app.get("/api/sandbox", async (c) => c.json(await sandboxView(ctx)));
}
