// A person's grants for hosts the sandbox's egress proxy refused a bash command: after the call, one card per
// refused host offers "allow" (once: the next run of the same command in this session reaches it), "always"
// (kept for this workspace, or every workspace; egress-grants.ts) or deny. Only a person answers it
// (`personOnly`); where nobody can be asked the refusal stands, and the result says so once.
import { addNetworkGrant, parsePattern, type EgressEntry, type HostPattern, type SandboxSettings } from "../sandbox";
import type { ToolCallContext } from "./tool";

export interface NetworkGrants {
  /** The settings for a call: with the hosts granted once for this very command, which the grant then spends. */
  forCall(command: string, settings: SandboxSettings): SandboxSettings;
  /** Asks a person about each host the proxy refused the call because no rule allowed it; lines for the result. */
  afterRun(ctx: Pick<ToolCallContext, "approve">, command: string, refused: EgressEntry[], settings: SandboxSettings): Promise<string[]>;
}

export function networkGrants(scvHome: string): NetworkGrants {
  const once = new Map<string, HostPattern[]>();
  // Hosts a person refused in this session: not asked again (a retry gets the same answer, no card loop).
  const refusedByPerson = new Set<string>();
  return {
    forCall(command, settings) {
      const granted = once.get(command);
      if (!granted || !settings.egress) return settings;
      once.delete(command);
      return { ...settings, egress: { ...settings.egress, allow: [...settings.egress.allow, ...granted] } };
    },
    async afterRun(ctx, command, refused, settings) {
      // Only what no rule allowed: a deny, a private answer or a mismatched Host header stays the user's config.
      const hosts = [...new Map(refused.filter((e) => e.reason?.includes("not in [sandbox.network] allow")).map((e) => [`${e.host}:${e.port}`, e])).values()];
      if (!hosts.length || !settings.egress) return [];
      if (!ctx.approve) return ["[nobody can be asked here to allow a refused host: the refusal stands]"];
      const lines: string[] = [];
      for (const e of hosts) {
        const pattern = `${e.host.includes(":") ? `[${e.host}]` : e.host}:${e.port}`;
        if (refusedByPerson.has(pattern)) {
          lines.push(`[a person already refused ${pattern} in this session: do not retry it]`);
          continue;
        }
        const answer = await ctx.approve({
          risk: "network",
          summary: `let sandboxed commands reach ${pattern} through SCV's proxy (refused for: ${command.slice(0, 200)})`,
          personOnly: true,
          rememberable: true,
          fingerprint: `sandbox-network:${pattern}`,
        });
        if (!answer.approved) {
          refusedByPerson.add(pattern);
          lines.push(`[${pattern} stays refused (${answer.reason}): do not retry it]`);
          continue;
        }
        const parsed = { ...parsePattern(pattern), text: `${pattern} (granted)` };
        if (answer.remember) {
          addNetworkGrant(scvHome, answer.remember === "user" ? "*" : settings.workspace, pattern);
          settings.egress.allow.push(parsed);
          lines.push(`[a person allowed ${pattern} ${answer.remember === "user" ? "for every workspace" : "for this workspace"}: run the command again]`);
        } else {
          once.set(command, [...(once.get(command) ?? []), parsed]);
          lines.push(`[a person allowed ${pattern} once: run the same command again and it reaches it this one time]`);
        }
      }
      return lines;
    },
  };
}
