// The model's question (clarify.requested) put to the editor. ACP has no free-text question, so a question with
// choices goes as a permission request whose options are the choices (and "Skip"), and the picked choice is the
// answer; a question without choices is shown in the conversation and answered "no answer" at once, so the model
// goes on and the person can reply in their next prompt.
import type { NotificationParams } from "../protocol/schema";
import { RequestPermissionResult } from "../protocol/acp";
import type { AcpPeer } from "./rpc";

const SKIP = "skip";

/** The person's answer (a choice's text), or undefined when skipped, unanswerable here, or not answered. */
export async function askEditor(peer: AcpPeer, sessionId: string, p: NotificationParams<"clarify.requested">, log: (line: string) => void): Promise<string | undefined> {
  const choices = p.choices ?? [];
  if (!choices.length) {
    peer.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\nSCV asks: ${p.question}\n(An editor cannot take a typed answer here; SCV goes on without one. Answer in your next prompt if it matters.)\n\n` } },
    });
    return undefined;
  }
  const options = [...choices.map((name, i) => ({ optionId: `choice-${i}`, name, kind: "allow_once" })), { optionId: SKIP, name: "Skip the question", kind: "reject_once" }];
  const toolCall = { toolCallId: p.call_id, title: `? ${p.question}`, kind: "think", status: "pending", content: [{ type: "content", content: { type: "text", text: p.question } }] };
  try {
    const answer = await peer.request("session/request_permission", { sessionId, toolCall, options }, RequestPermissionResult);
    if (answer.outcome.outcome !== "selected" || answer.outcome.optionId === SKIP) return undefined;
    return choices[Number(String(answer.outcome.optionId).slice("choice-".length))];
  } catch (e) {
    log(`the question went unanswered: the editor did not answer (${(e as Error).message})`);
    return undefined;
  }
}
