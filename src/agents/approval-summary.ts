// What a person approves for a delegated call: the agent, the exact launch (or the running server the prompt
// goes to), the bounded prompt, directory, timeout, the delegate risk, and what full permissions switch off.
// It renders the assessed CallPlan, so the argv approved is the argv that runs.
import type { AcpSupport } from "./descriptors";
import type { CallPlan } from "./plan";

const PROMPT_SHOWN_CHARS = 2000;

/** The approval summary: the agent, the exact launch, bounded prompt, directory, timeout and delegate risk. */
export function approvalSummary(p: CallPlan, workspace: string): string {
  const d = p.offered.descriptor;
  if (d.backend === "nested-scv" && p.offered.transport !== "acp") return nestedSummary(p, workspace);
  const shownArgs = [...p.argv.slice(1, -1), "<prompt>"];
  const prompt =
    p.prompt.length > PROMPT_SHOWN_CHARS
      ? `${p.prompt.slice(0, PROMPT_SHOWN_CHARS)}… (${p.prompt.length - PROMPT_SHOWN_CHARS} more characters)`
      : p.prompt;
  const acp = p.offered.transport === "acp";
  const launch = !acp
    ? `agent ${d.name}: Launch ${p.offered.executable} with args ${JSON.stringify(shownArgs)}`
    : p.conversation
      ? `agent ${d.name}: Prompt conversation ${p.conversation.handle} on its running ACP server (${p.offered.executable})`
      : `agent ${d.name}: Launch ${p.offered.executable} with args ${JSON.stringify(p.argv.slice(1))} as its Agent Client Protocol server, then send the prompt`;
  const selections = [p.model !== undefined ? `model ${p.model}` : "", p.effort !== undefined ? `effort ${p.effort}` : ""].filter(Boolean);
  const lines = [
    launch,
    acp && selections.length ? `Selects: ${selections.join(", ")} (session/set_config_option)` : "",
    acp ? `Prompt: ${prompt}` : `Prompt (the last argument): ${prompt}`,
    `Directory: ${p.cwd}${p.cwd === workspace ? " (the workspace root)" : ""}`,
    p.conversation
      ? `Conversation: ${p.conversation.handle}, turn ${p.conversation.turns + 1}`
      : p.startsConversation
        ? "Conversation: new"
        : "",
    `Timeout: ${p.timeoutSeconds} seconds`,
    `Risk: delegate. ${d.product} runs on its own: it may read, write, and run commands, use credentials it can reach, and call its own model provider.`,
  ];
  if (p.offered.settings.permissions === "full") {
    const switches = acp && d.acp ? acpFullSwitches(d.acp, d.fullPermissions.env) : [...d.fullPermissions.args, ...envWords(d.fullPermissions.env)];
    lines.push(
      `FULL PERMISSIONS: [agents.${d.name}] permissions = "full" ${switches.length ? `adds ${switches.join(" ")}, so the agent acts without its own approval prompts` : `is set (${d.product} has no approval prompts to turn off)`}.`,
    );
  }
  return lines.filter(Boolean).join("\n");
}

const envWords = (env: Readonly<Record<string, string>>) => Object.entries(env).map(([k, v]) => `${k}=${v}`);

/** What `permissions = "full"` changes on the ACP server: a session mode, server arguments, variables. */
function acpFullSwitches(acp: AcpSupport, cliEnv: Readonly<Record<string, string>>): string[] {
  const extraArgs = acp.args(true).filter((a) => !acp.args(false).includes(a));
  const modes = acp.fullModes.length ? [`session mode ${acp.fullModes.join(" or ")}`] : [];
  return [...modes, ...extraArgs, ...envWords({ ...cliEnv, ...acp.fullEnv })];
}

/** The nested SCV runs no argv per call: the summary says which server the prompt goes to. */
function nestedSummary(p: CallPlan, workspace: string): string {
  const prompt =
    p.prompt.length > PROMPT_SHOWN_CHARS ? `${p.prompt.slice(0, PROMPT_SHOWN_CHARS)}… (${p.prompt.length - PROMPT_SHOWN_CHARS} more characters)` : p.prompt;
  return [
    p.conversation
      ? `agent scv: Send the prompt to the nested SCV of conversation ${p.conversation.handle}, turn ${p.conversation.turns + 1}`
      : `agent scv: Start a nested SCV: ${p.offered.executable} with args ${JSON.stringify(p.argv.slice(1))}${p.model ? `, model ${p.model}` : ""}`,
    `Prompt: ${prompt}`,
    `Directory: ${p.cwd}${p.cwd === workspace ? " (the workspace root)" : ""}`,
    `Timeout: ${p.timeoutSeconds} seconds`,
    "Risk: delegate. The nested SCV runs its own model and tools; each of its side effects asks this session for approval.",
  ].join("\n");
}
