// Moving a session between provider profiles (session.configure, session.resume with another profile): which of
// its reasoning the new profile's API can read back, and what the person is told about the rest.
import type { Config } from "../config/schema";
import { RpcError } from "../protocol/rpc";
import { ERROR_CODES } from "../protocol/schema";

/**
 * What a session's reasoning does when it moves to another profile: Anthropic thinking blocks and OpenAI encrypted
 * reasoning items read back only at their own API, so the other API's adapters leave them out (said in a note);
 * encrypted reasoning cannot move to another OpenAI endpoint at all (refused).
 */
export function reasoningCrossing(held: { openai: boolean; anthropic: boolean }, from: Config["providers"][string] | undefined, fromName: string, to: Config["providers"][string], toName: string): string[] {
  const notes: string[] = [];
  if (held.anthropic && to.kind !== "anthropic") {
    notes.push("the model's earlier thinking (Anthropic thinking blocks) cannot be read by an OpenAI-compatible API and is left out; the conversation itself is carried");
  }
  if (!held.openai) return notes;
  if (to.wire_api === "chat") notes.push("the model's earlier reasoning has no form in the Chat API and is left out; the conversation itself is carried");
  else if (to.kind === "anthropic") notes.push("the model's earlier reasoning (OpenAI encrypted reasoning items) cannot be read by the Anthropic API and is left out; the conversation itself is carried");
  // From an Anthropic profile SCV cannot tell which endpoint wrote the reasoning it carried along: it is sent.
  else if (from?.kind !== "anthropic" && (!from || from.base_url !== to.base_url)) {
    throw new RpcError(
      ERROR_CODES.invalid_params,
      `cannot carry this conversation to "${toName}": its history holds encrypted reasoning from ${from?.base_url ?? fromName} that ${to.base_url} cannot read; start a new session there (/new after switching, or scv -p ${toName})`,
    );
  }
  return notes;
}
