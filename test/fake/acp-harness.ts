// A session whose agents run over ACP on the stand-in server: ~/.local/bin of a temporary user home holds
// links named like the real servers (claude-agent-acp, codex-acp, grok, dsh) to the committed acp-agent.sh,
// so SCV's own executable lookup finds them. Every message the servers receive is logged for assertions.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DESCRIPTORS } from "../../src/agents/descriptors";
import type { AgentOverride } from "../../src/config/schema";
import { afterEach } from "bun:test";
import { createAgentTool } from "../../src/tools/agent";
import type { ToolRisk } from "../../src/scope";
import type { Tool } from "../../src/tools/tool";
import { type FixtureOptions, signIn } from "./agent-harness";
import { type ConfigOverrides, type FakeScope, invokeTool, makeCallContext, makeScope } from "./scope";

export const ACP_AGENT = join(import.meta.dir, "acp-agent.sh");
export const ACP_SERVER = join(import.meta.dir, "acp-server.ts");
const SERVER_NAMES: Record<string, string> = { claude: "claude-agent-acp", codex: "codex-acp", grok: "grok", dsh: "dsh" };

export interface AcpFixture {
  scope: FakeScope;
  root: string;
  scvHome: string;
  userHome: string;
  logDir: string;
  /** Every server started so far: its start record and the messages it received. */
  servers(): AcpServerLog[];
  cleanup(): Promise<void>;
}

export interface AcpServerLog {
  pid: number;
  flavour: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  received: Record<string, unknown>[];
}

export interface AcpFixtureOptions extends Pick<FixtureOptions, "overrides" | "config" | "env"> {
  /** Agents whose ACP server is installed. */
  servers?: string[];
  autoApprove?: boolean;
}

export function makeAcpFixture(opts: AcpFixtureOptions = {}): AcpFixture {
  const root = mkdtempSync(join(tmpdir(), "scv-acp-"));
  const scvHome = join(root, "scv-home");
  const userHome = join(root, "home");
  const logDir = join(root, "log");
  const bin = join(userHome, ".local", "bin");
  for (const d of [scvHome, bin, logDir]) mkdirSync(d, { recursive: true });
  const servers = opts.servers ?? ["claude", "codex", "grok", "dsh"];
  for (const name of servers) {
    symlinkSync(ACP_AGENT, join(bin, SERVER_NAMES[name]!));
    signIn(scvHome, name);
  }
  const agents: Record<string, Partial<AgentOverride>> = {};
  for (const d of DESCRIPTORS) agents[d.name] = servers.includes(d.name) ? { ...opts.overrides?.[d.name] } : { command: `/nonexistent/${d.name}`, ...opts.overrides?.[d.name] };
  const scope = makeScope({
    autoApprove: opts.autoApprove,
    env: {
      SCV_HOME: scvHome,
      HOME: userHome,
      PATH: "/nonexistent-path",
      FAKE_ACP_LOG: logDir,
      FAKE_ACP_SERVER: ACP_SERVER,
      FAKE_ACP_BUN: process.execPath,
      ...opts.env,
    },
    config: { ...opts.config, agents: agents as ConfigOverrides["agents"] },
  });
  return {
    scope,
    root,
    scvHome,
    userHome,
    logDir,
    servers: () => readServers(logDir),
    async cleanup() {
      await scope.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(scope.workspace, { recursive: true, force: true });
    },
  };
}

function readServers(logDir: string): AcpServerLog[] {
  return readdirSync(logDir)
    .filter((n) => n.endsWith(".start.json"))
    .map((n) => {
      const start = JSON.parse(readFileSync(join(logDir, n), "utf8"));
      const jsonl = join(logDir, `${start.pid}.jsonl`);
      const received = existsSync(jsonl)
        ? readFileSync(jsonl, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
      return { ...start, received };
    })
    .sort((a, b) => a.pid - b.pid);
}

/** A prompt script for the stand-in server (see acp-server.ts). */
export function script(steps: Record<string, unknown>[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ steps, ...extra });
}

type Asked = { risk: ToolRisk; summary: string };

/** Fixtures with their agent tool, each cleaned up after its test. */
export function acpFixtures(): (opts?: AcpFixtureOptions) => { f: AcpFixture; tool: Tool } {
  const live: AcpFixture[] = [];
  afterEach(async () => {
    for (const f of live.splice(0)) await f.cleanup();
  });
  return (opts = {}) => {
    const f = makeAcpFixture(opts);
    live.push(f);
    const tool = createAgentTool(f.scope);
    if (!tool) throw new Error("no agent tool");
    return { f, tool };
  };
}

/**
 * One `agent` call as the turn loop makes it. `gate` answers relayed permission requests (absent: no gate);
 * `cancelOnProgress` cancels the call at its first progress line. `json` is the result object, or {} for SCV's own plain-text errors.
 */
export async function acpCall(
  f: AcpFixture,
  tool: Tool,
  args: Record<string, unknown>,
  opts: { gate?: (r: Asked) => boolean; cancelOnProgress?: boolean } = {},
) {
  const ctx = makeCallContext(f.scope);
  const asked: Asked[] = [];
  const gate = opts.gate;
  if (gate) {
    ctx.approve = async (r) => {
      asked.push(r);
      const approved = gate(r);
      return { approved, reason: approved ? "approved" : "denied" };
    };
  }
  if (opts.cancelOnProgress) {
    // Cancels once the turn is under way (its first progress line), however slowly the server started.
    ctx.progress = (line) => {
      ctx.progressLines.push(line);
      ctx.cancel();
    };
  }
  const inv = await invokeTool(tool, args, ctx);
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(inv.result.output);
  } catch {
    // SCV's own errors are plain text
  }
  return { ...inv, ctx, asked, json };
}
