// When a sandboxed command fails because the sandbox said no, the model is told so in words, with what was
// denied and how to ask for more, so it does not retry the same thing.
import type { SandboxSettings } from "./policy";

const SIGNS: { pattern: RegExp; what: string }[] = [
  { pattern: /Read-only file system/i, what: "a write to a read-only place (.git, .scv, or outside the writable places)" },
  { pattern: /Permission denied|EACCES/i, what: "an access the sandbox does not allow (a write outside the workspace, or a hidden path)" },
  { pattern: /Operation not permitted|EPERM/i, what: "an operation the sandbox does not allow (a signal or a trace of a process outside it, a mount, a privilege)" },
  { pattern: /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|getaddrinfo|Name or service not known|Connection refused/i, what: "network access (the sandbox has no network)" },
];

/** A note for a failed sandboxed command whose output shows a denial; undefined when nothing points to the sandbox. */
export function explainDenial(output: string, settings: Pick<SandboxSettings, "mode" | "network" | "egress">): string | undefined {
  const seen = SIGNS.filter((s) => s.pattern.test(output) && !(settings.network && s.what.startsWith("network")));
  if (!seen.length) return undefined;
  const writable = settings.mode === "workspace-write" ? "the workspace (except .git and .scv) and $TMPDIR" : "$TMPDIR only";
  const network = settings.network
    ? ""
    : settings.egress
      ? "; the network is reachable only through SCV's proxy (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), to the hosts [sandbox.network] allows, and names resolve only there"
      : "; there is no network (a person can open hosts with [sandbox.network] allow or presets in the user config)";
  return (
    `[sandbox: this command ran in the ${settings.mode} sandbox, which may have denied ${seen.map((s) => s.what).join("; ")}. ` +
    `It may write ${writable}; secrets and SCV's own files are hidden${network}. ` +
    `Do not retry it unchanged. If it truly needs more, call bash again with "unsandboxed": "<why>"; a person will be asked.]`
  );
}
