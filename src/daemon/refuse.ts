// A delegated SCV (SCV_DELEGATION_DEPTH > 0) may not start, stop, restart, update or run a daemon, or manage
// channels. Cooperative: it reads the environment a delegated run inherits (see docs/security.md).

export class DelegatedRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DelegatedRefusal";
  }
}

/** The delegation depth the environment declares; 0 when absent or unreadable. */
export function delegationDepthOf(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env.SCV_DELEGATION_DEPTH?.trim();
  if (!raw) return 0;
  const n = Number(raw);
  // A malformed value must not unlock anything: treat it as delegated.
  return Number.isInteger(n) && n >= 0 ? n : 1;
}

/** The refusal message for `action` (e.g. "start a daemon"), or undefined when not delegated. */
export function delegatedRefusal(action: string, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const depth = delegationDepthOf(env);
  if (depth === 0) return undefined;
  return (
    `refused: this SCV runs as a delegated agent (SCV_DELEGATION_DEPTH=${env.SCV_DELEGATION_DEPTH}), and a delegated ` +
    `run may not ${action}. Run the command from your own shell instead.`
  );
}

/** Throws DelegatedRefusal when this SCV runs delegated. */
export function refuseWhenDelegated(action: string, env: Readonly<Record<string, string | undefined>> = process.env): void {
  const message = delegatedRefusal(action, env);
  if (message) throw new DelegatedRefusal(message);
}
