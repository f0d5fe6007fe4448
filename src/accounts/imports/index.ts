// `scv agents import <agent>` and the import digests' state for `scv agents status` and `scv config show`.
// Each import is a snapshot, never a link: re-run it after changing the source.
import { type Io, type LoginContext, LoginError } from "../login-io";
import { codexDigest, importCodex, readCodexSource } from "./codex";
import { describeImport, importState, type ImportState, readImportRecord } from "./digest";
export { forgetImport } from "./digest";
import { grokDigest, importGrok, readGrokSource } from "./grok";
import { importPiFromScvProvider } from "./pi";
import { importScv } from "./scv";
import { activeProviderCopy, providerDigest } from "./scv-provider";

export const IMPORTABLE = ["codex", "grok", "pi", "scv"] as const;

const USAGE =
  "scv agents import codex [--from DIR] | grok [--from DIR] | pi --from-scv-provider | scv";

/** Parses `<agent> [--from DIR | --from=DIR | --from-scv-provider]` and runs that import. */
export async function agentImport(ctx: LoginContext, raw: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = raw;
  if (!name) throw new LoginError(`name an agent to import: ${USAGE}`, 2);
  let from: string | undefined;
  let fromScv = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === "--from-scv-provider") fromScv = true;
    else if (a === "--from") {
      from = rest[++i];
      if (!from) throw new LoginError("--from needs a directory", 2);
    } else if (a.startsWith("--from=")) from = a.slice("--from=".length);
    else throw new LoginError(`unexpected argument; usage: ${USAGE}`, 2);
  }
  switch (name) {
    case "codex":
    case "grok":
      if (fromScv) throw new LoginError(`--from-scv-provider is for pi only; ${name} takes --from DIR`, 2);
      return name === "codex" ? importCodex(ctx, from, io) : importGrok(ctx, from, io);
    case "pi":
      if (!fromScv || from) {
        throw new LoginError("pi imports only SCV's own provider: `scv agents import pi --from-scv-provider` (or sign in with `scv agents login pi --openai-compatible`)", 2);
      }
      return importPiFromScvProvider(ctx, io);
    case "scv":
      if (from || fromScv) throw new LoginError("`scv agents import scv` takes no options: it copies SCV's own active provider", 2);
      return importScv(ctx, io);
    default:
      throw new LoginError(`${JSON.stringify(name)} has nothing to import; usage: ${USAGE}`, 2);
  }
}

/** The state of an agent's last import, or undefined when it was never imported. */
export function importStateOf(ctx: LoginContext, agent: string): ImportState | undefined {
  switch (agent) {
    case "codex":
      return importState(ctx.scvHome, agent, () => codexDigest(readCodexSource(sourceOf(ctx, agent))));
    case "grok":
      return importState(ctx.scvHome, agent, () => grokDigest(readGrokSource(sourceOf(ctx, agent))));
    case "pi":
    case "scv":
      return importState(ctx.scvHome, agent, () => providerDigest(activeProviderCopy(ctx.config, ctx.env, { allowKeyless: agent === "scv" }), agent));
    default:
      return undefined;
  }
}

/** The directory the recorded import copied from. */
function sourceOf(ctx: LoginContext, agent: string): string {
  return readImportRecord(ctx.scvHome, agent)?.source ?? "";
}

/** `<agent>: imported from …: up to date` (or changed) for every imported agent. */
export function importSummaries(ctx: LoginContext): { agent: string; state: ImportState["state"]; line: string }[] {
  return IMPORTABLE.flatMap((agent) => {
    const s = importStateOf(ctx, agent);
    return s ? [{ agent, state: s.state, line: describeImport(s) }] : [];
  });
}
