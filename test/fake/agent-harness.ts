// A session set up for delegated-agent tests. Agents run the committed fake script through bash: each agent's
// `command` is the absolute bash executable and its `args` are the fake script plus the agent's default fixed
// arguments, so argv as the fake sees it is exactly what the real CLI would get, and no test ever executes a
// freshly written file. Executable resolution itself is tested separately with files that are never run.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DESCRIPTORS } from "../../src/agents/descriptors";
import type { AgentOverride } from "../../src/config/schema";
import { afterEach } from "bun:test";
import { createAgentTool } from "../../src/tools/agent";
import type { Tool } from "../../src/tools/tool";
import { type ConfigOverrides, type FakeScope, invokeTool, makeCallContext, makeScope } from "./scope";

export const FAKE_AGENT = join(import.meta.dir, "agent-fake.sh");
export const BASH = Bun.which("bash") ?? "/bin/bash";
/** The agent CLIs the fake script stands in for (the nested SCV has its own stand-in, scv-server-fake.sh). */
export const ALL_AGENTS = DESCRIPTORS.map((d) => d.name).filter((n) => n !== "scv");
export const FAKE_SCV_SERVER = join(import.meta.dir, "scv-server-fake.sh");

export interface Invocation {
  /** Arguments after the fake script, i.e. what the real CLI would receive after its executable. */
  args: string[];
  env: Record<string, string>;
  cwd: string;
  childPid?: number;
}

export interface FakeKnobs {
  stdout?: string;
  stderr?: string;
  last?: string;
  exit?: number;
  sleep?: number;
  /** A file the fake waits for after its output (FAKE_AGENT_HOLD): the run lasts until the test makes it. */
  hold?: string;
  child?: boolean;
  signal?: string;
  tmpFile?: string;
}

export interface AgentFixture {
  scope: FakeScope;
  root: string;
  scvHome: string;
  userHome: string;
  logDir: string;
  invocations(): Invocation[];
  /** Sets what the next runs print and do. */
  set(knobs: FakeKnobs): void;
}

export interface FixtureOptions {
  /** Agents run through the fake; the others get a missing executable and are not offered. */
  agents?: string[];
  overrides?: Record<string, Partial<AgentOverride>>;
  config?: ConfigOverrides;
  env?: Record<string, string | undefined>;
  workspace?: string;
  delegationDepth?: number;
  /** Leave these file-checked agents signed out. */
  signedOut?: string[];
}

export function signIn(scvHome: string, agent: string): void {
  const home = join(scvHome, "agents", agent);
  const put = (rel: string, text: string) => {
    mkdirSync(join(home, rel, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, rel), text, { mode: 0o600 });
  };
  if (agent === "grok") put(".grok/auth.json", '{"grok.com":{"token":"t"}}');
  if (agent === "dsh") put(".dsh/.credentials.yaml", "refs:\n  DEEPSEEK_API_KEY: sk-test\n");
  if (agent === "pi") put(".pi/agent/auth.json", '{"anthropic":{"type":"api_key","key":"k"}}');
  if (agent === "scv") put("config.toml", '[provider]\nactive = "scv"\n[providers.scv]\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "sk-nested-test"\n');
}

export function makeAgentFixture(opts: FixtureOptions = {}): AgentFixture {
  const root = mkdtempSync(join(tmpdir(), "scv-agents-"));
  const scvHome = join(root, "scv-home");
  const userHome = join(root, "home");
  const logDir = join(root, "log");
  for (const d of [scvHome, userHome, logDir]) mkdirSync(d, { recursive: true });
  const stdoutFile = join(root, "stdout.txt");
  writeFileSync(stdoutFile, "");
  const wanted = opts.agents ?? ALL_AGENTS;
  for (const a of wanted) if (!opts.signedOut?.includes(a)) signIn(scvHome, a);

  const agents: Record<string, Partial<AgentOverride>> = {};
  for (const d of DESCRIPTORS) {
    const script = d.name === "scv" ? FAKE_SCV_SERVER : FAKE_AGENT;
    agents[d.name] = wanted.includes(d.name)
      ? { command: BASH, args: [script, ...d.fixedArgs], ...opts.overrides?.[d.name] }
      : { command: `/nonexistent/${d.name}` };
  }
  const scope = makeScope({
    workspace: opts.workspace,
    delegationDepth: opts.delegationDepth,
    env: {
      SCV_HOME: scvHome,
      HOME: userHome,
      PATH: "/usr/local/bin:/usr/bin:/bin",
      FAKE_AGENT_LOG: logDir,
      FAKE_AGENT_STDOUT: stdoutFile,
      ...opts.env,
    },
    config: { ...opts.config, agents: agents as ConfigOverrides["agents"] },
  });
  const env = scope.env as Record<string, string | undefined>;
  return {
    scope,
    root,
    scvHome,
    userHome,
    logDir,
    invocations: () => readInvocations(logDir),
    set(k) {
      if (k.stdout !== undefined) writeFileSync(stdoutFile, k.stdout);
      const knob = (name: string, v: string | number | boolean | undefined) => {
        if (v === undefined) return;
        env[name] = v === false ? undefined : String(v);
      };
      knob("FAKE_AGENT_STDERR", k.stderr);
      knob("FAKE_AGENT_LAST", k.last);
      knob("FAKE_AGENT_EXIT", k.exit);
      knob("FAKE_AGENT_SLEEP", k.sleep);
      knob("FAKE_AGENT_HOLD", k.hold);
      knob("FAKE_AGENT_CHILD", k.child);
      knob("FAKE_AGENT_SIGNAL", k.signal);
      knob("FAKE_AGENT_TMPFILE", k.tmpFile);
    },
  };
}

export function readInvocations(logDir: string): Invocation[] {
  const ids = readdirSync(logDir)
    .filter((n) => n.endsWith(".args"))
    .map((n) => n.slice(0, -5))
    .sort((a, b) => {
      const [ta, tb] = [BigInt(a.split("-")[0]!), BigInt(b.split("-")[0]!)];
      return ta < tb ? -1 : ta > tb ? 1 : 0;
    });
  return ids.map((id) => {
    const nul = (f: string) => readFileSync(join(logDir, `${id}.${f}`), "utf8").split("\0").slice(0, -1);
    const env: Record<string, string> = {};
    for (const kv of nul("env")) {
      const i = kv.indexOf("=");
      env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    let childPid: number | undefined;
    try {
      childPid = Number(readFileSync(join(logDir, `${id}.child`), "utf8").trim());
    } catch {
      // no child
    }
    return { args: nul("args"), env, cwd: readFileSync(join(logDir, `${id}.cwd`), "utf8").trim(), childPid };
  });
}

/** Fixtures with their agent tool, each closed after its test. */
export function agentFixtures(): (opts?: FixtureOptions) => { f: AgentFixture; tool: Tool } {
  const live: AgentFixture[] = [];
  afterEach(async () => {
    for (const f of live.splice(0)) {
      await f.scope.close();
      rmSync(f.root, { recursive: true, force: true });
      rmSync(f.scope.workspace, { recursive: true, force: true });
    }
  });
  return (opts = {}) => {
    const f = makeAgentFixture(opts);
    live.push(f);
    return { f, tool: createAgentTool(f.scope)! };
  };
}

/** One `agent` call as an approving turn makes it; `json` is the result object, or {} for plain-text errors. */
export async function agentCall(f: AgentFixture, tool: Tool, args: Record<string, unknown>) {
  const ctx = makeCallContext(f.scope);
  const inv = await invokeTool(tool, args, ctx);
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(inv.result.output);
  } catch {
    // SCV's own errors are plain text
  }
  return { ...inv, ctx, json };
}
