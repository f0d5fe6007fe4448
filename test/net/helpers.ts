// Shared setup for the network tests: config, a tool context, an injected resolver, and the port-aware
// loopback exception. Nothing here switches a global; every override travels through scope.services.net.
import { tmpdir } from "node:os";
import { AgentConfig, ChannelsConfig, CheckpointsConfig, type Config, MemoryConfig, ProviderProfile, withKindDefaults, SandboxConfig, SchedulesConfig, SessionsConfig, SkillsConfig, ToolsConfig, WebConfig, WebUiConfig } from "../../src/config/schema";
import type { LookupFn, NetOverrides } from "../../src/net";
import type { ToolCallContext } from "../../src/tools/tool";
import { makeCallContext, makeScope } from "../fake/scope";

export function testConfig(web: Partial<Config["web"]> = {}, extra: { wire_api?: "responses" | "chat"; outputLimit?: number } = {}): Config {
  return {
    provider: { active: "openai" },
    providers: { openai: withKindDefaults(ProviderProfile.parse({ wire_api: extra.wire_api ?? "responses" }), "openai") },
    tools: ToolsConfig.parse(extra.outputLimit ? { output_limit_bytes: extra.outputLimit } : {}),
    web: WebConfig.parse(web),
    agent: AgentConfig.parse({}),
    agents: {},
    skills: SkillsConfig.parse({}),
    sessions: SessionsConfig.parse({}),
    checkpoints: CheckpointsConfig.parse({}),
    memory: MemoryConfig.parse({}),
    channels: ChannelsConfig.parse({}),
    prices: {},
    limits: {},
    mcp: { max_message_bytes: 16 * 1024 * 1024, schema_budget_bytes: 8192, servers: {} },
    schedules: SchedulesConfig.parse({}),
    web_ui: WebUiConfig.parse({}),
    sandbox: SandboxConfig.parse({}),
  };
}

/** A tool call context (from the shared scope fake) with this config and the net overrides in services. */
export function toolContext(config: Config, net: NetOverrides = {}, env: Record<string, string> = {}): ToolCallContext {
  const scope = makeScope({ workspace: tmpdir(), env });
  scope.config = config;
  scope.services.net = net;
  return makeCallContext(scope, { outputLimitBytes: config.tools.output_limit_bytes });
}

/** Admits exactly one loopback port: the test server's. Every other address still meets the policy. */
export function allowPort(port: number): (address: string, port: number) => boolean {
  return (address, p) => p === port && (address === "127.0.0.1" || address === "::1");
}

/** A resolver answering from a table, counting calls per name; unknown names fail like NXDOMAIN. */
export function tableLookup(table: Record<string, string[]>): LookupFn & { calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const fn = (async (host: string) => {
    calls.set(host, (calls.get(host) ?? 0) + 1);
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }) as const);
  }) as LookupFn & { calls: Map<string, number> };
  fn.calls = calls;
  return fn;
}

/** A resolver that must never be asked (for tests that should fail before resolution). */
export const noLookup: LookupFn = async (host) => {
  throw new Error(`unexpected DNS lookup of ${host}`);
};

/**
 * A safety net for the whole test file: while installed, any fetch to a host other than 127.0.0.1 / ::1
 * throws (and is recorded) instead of leaving the machine, even if the code under test had a bug.
 */
export function installLoopbackTripwire(): { violations: string[]; restore(): void } {
  const real = globalThis.fetch;
  const violations: string[] = [];
  const guarded = ((input: string | URL | Request, init?: RequestInit) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const host = new URL(href).hostname;
    if (host !== "127.0.0.1" && host !== "[::1]") {
      violations.push(href);
      return Promise.reject(new Error(`test tripwire: refused to connect to ${href}`));
    }
    return real(input as Request, init);
  }) as typeof fetch;
  Object.assign(guarded, real);
  globalThis.fetch = guarded;
  return {
    violations,
    restore() {
      globalThis.fetch = real;
    },
  };
}
