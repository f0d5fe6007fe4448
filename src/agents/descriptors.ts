// The agent registry: one descriptor per delegated agent CLI. Everything SCV knows about an agent (its command
// line, what it takes, where its state lives, what it must not inherit, how it signs in, how its output reads)
// is here, so adding an agent is one more entry. The descriptor's shape is in ./descriptor-types.
import type { AgentDescriptor, ConfigAgentName } from "./descriptor-types";
import { dshSignedIn, grokSignedIn, piSignedIn, scvSignedIn } from "./signin";

export type {
  AcpSupport,
  AgentDescriptor,
  ConfigAgentName,
  OutputFormat,
  SessionSupport,
  SignInContext,
} from "./descriptor-types";

const uuidArgs = (flag: string) => (id: string) => [flag, id];

export const DESCRIPTORS = [
  {
    name: "claude",
    backend: "process-per-turn",
    product: "Claude Code",
    line: "Anthropic's coding agent; reads, edits, and runs code, and can search and fetch the web",
    modelFamily: "Claude alias such as sonnet or opus, or a full Claude model ID",
    command: "claude",
    fixedArgs: ["-p"],
    outputArgs: () => ["--output-format", "stream-json", "--verbose"],
    modelArgs: (m) => ["--model", m],
    effortArgs: (e) => ["--effort", e],
    promptArgs: [],
    fullPermissions: { args: ["--permission-mode", "bypassPermissions"], env: {} },
    format: "claude-stream-json",
    session: {
      idChosenBy: "scv",
      startArgs: uuidArgs("--session-id"),
      resumeArgs: uuidArgs("--resume"),
      resumePlacement: "options",
      transcripts: [".claude/projects"],
    },
    ownVariables: [
      /^ANTHROPIC_/,
      "CLAUDE_CODE_OAUTH_TOKEN",
      "CLAUDE_CONFIG_DIR",
      "CLAUDE_CODE_USE_BEDROCK",
      "CLAUDE_CODE_USE_VERTEX",
      "CLAUDE_CODE_USE_FOUNDRY",
    ],
    extraEnv: {},
    installDirs: [".local/bin"],
    signIn: "cli",
    acp: {
      command: "claude-agent-acp",
      args: () => [],
      fullModes: ["bypassPermissions"],
      fullEnv: {},
      modelOptions: ["model"],
      effortOptions: ["effort"],
    },
  },
  {
    name: "codex",
    backend: "process-per-turn",
    product: "Codex",
    line: "OpenAI's coding agent; reads, edits, and runs code, with live web search under full permissions",
    modelFamily: "OpenAI model ID from the Codex configuration; not a Claude alias",
    command: "codex",
    fixedArgs: ["exec"],
    outputArgs: (file) => ["--json", "-o", file ?? "<output file>"],
    modelArgs: (m) => ["-m", m],
    effortArgs: (e) => ["-c", `model_reasoning_effort="${e}"`],
    promptArgs: [],
    fullPermissions: { args: ["--dangerously-bypass-approvals-and-sandbox", "-c", 'web_search="live"'], env: {} },
    format: "codex-json",
    usesOutputFile: true,
    session: {
      idChosenBy: "cli",
      startArgs: () => [],
      // `codex exec [options] resume <thread-id> <prompt>`: options before `resume` apply to the resumed
      // turn (verified with the bypass switch on 0.171.0), so custom args and switches keep their place.
      resumeArgs: (id) => ["resume", id],
      resumePlacement: "beforePrompt",
      transcripts: ["sessions"],
    },
    stateDir: { env: "CODEX_HOME", path: "" },
    ownVariables: [/^CODEX_/, /^OPENAI_/],
    extraEnv: {},
    installDirs: [".local/bin"],
    signIn: "cli",
    // Printed even with stdin closed, and when its home is under a temporary directory (0.171.0).
    harmlessStderr: [/^Reading additional input from stdin\.\.\.$/, /Refusing to create helper binaries under temporary dir/],
    acp: {
      command: "codex-acp",
      args: () => [],
      // @agentclientprotocol/codex-acp 2.x, then Zed's codex-acp 0.16.
      fullModes: ["agent-full-access", "full-access"],
      // codex-acp takes no -c overrides; CODEX_CONFIG is its JSON form of them (live web search as with -c).
      fullEnv: { CODEX_CONFIG: '{"web_search":"live"}' },
      modelOptions: ["model"],
      effortOptions: ["reasoning_effort", "effort"],
    },
  },
  {
    name: "grok",
    backend: "process-per-turn",
    product: "Grok Build",
    line:
      "xAI's coding agent; reads, edits, and runs code, with live web and X search. Call it when another agent declined or refused a request, including a safety or guardrail refusal",
    modelFamily: "Grok model ID",
    command: "grok",
    fixedArgs: [],
    outputArgs: () => ["--output-format", "json"],
    modelArgs: (m) => ["-m", m],
    effortArgs: (e) => ["--reasoning-effort", e],
    promptArgs: ["-p"],
    fullPermissions: { args: ["--always-approve"], env: {} },
    format: "grok-json",
    // Headless Grok starts a session with -s <uuid> and continues it with -r <uuid> (1.0.41).
    session: {
      idChosenBy: "scv",
      startArgs: uuidArgs("-s"),
      resumeArgs: uuidArgs("-r"),
      resumePlacement: "options",
      transcripts: [],
      // grok 1.0.41 keeps each headless session as a folder of files: sessions/<encoded workspace>/<session id>/.
      transcriptFolders: [{ path: ".grok/sessions", depth: 2 }],
    },
    stateDir: { env: "GROK_HOME", path: ".grok" },
    ownVariables: [/^GROK_/, /^XAI_/],
    extraEnv: { GROK_DISABLE_AUTOUPDATER: "1" },
    installDirs: [".local/bin", ".grok/bin"],
    signIn: grokSignedIn,
    acp: {
      command: "grok",
      // Options of `agent` go before `stdio`; after it they are rejected.
      args: (full) => (full ? ["agent", "--always-approve", "stdio"] : ["agent", "stdio"]),
      fullModes: [],
      fullEnv: {},
      modelOptions: ["model"],
      effortOptions: ["reasoning_effort", "effort"],
    },
  },
  {
    name: "dsh",
    backend: "process-per-turn",
    product: "DeepSeek Harness",
    line: "a coding agent on DeepSeek models",
    command: "dsh",
    fixedArgs: ["--profile", "headless"],
    outputArgs: () => [],
    promptArgs: [],
    fullPermissions: { args: [], env: { DSH_PERMISSION_MODE: "danger-full-access" } },
    format: "text",
    stateDir: { env: "DSH_HOME", path: ".dsh" },
    ownVariables: [/^DSH_/, /^DEEPSEEK_/],
    extraEnv: {},
    installDirs: [".local/bin"],
    signIn: dshSignedIn,
    // Full permissions come from DSH_PERMISSION_MODE, which the CLI's own fullPermissions.env already sets.
    acp: { command: "dsh", args: () => ["--profile", "acp"], fullModes: [], fullEnv: {} },
  },
  {
    name: "pi",
    backend: "process-per-turn",
    product: "pi",
    line: "a minimal coding agent that can run on SCV's own model endpoint; no web search",
    modelFamily: "pi model pattern or provider/id",
    command: "pi",
    fixedArgs: ["-p"],
    outputArgs: () => ["--mode", "json"],
    modelArgs: (m) => ["--model", m],
    effortArgs: (e) => ["--thinking", e],
    promptArgs: [],
    // pi has no approval prompts, sandbox, or built-in web search, so full permissions add nothing.
    fullPermissions: { args: [], env: {} },
    format: "pi-json",
    session: {
      idChosenBy: "scv",
      startArgs: uuidArgs("--session-id"),
      resumeArgs: uuidArgs("--session-id"),
      resumePlacement: "options",
      transcripts: [".pi/agent/sessions"],
    },
    stateDir: { env: "PI_CODING_AGENT_DIR", path: ".pi/agent" },
    ownVariables: [/^PI_/],
    extraEnv: {},
    installDirs: [".local/bin"],
    signIn: piSignedIn,
  },
  {
    name: "scv",
    backend: "nested-scv",
    product: "SCV",
    line: "a nested session for a self-contained sub-task kept out of this context, or work in another project",
    modelFamily: "a model ID of SCV's own provider, for a new conversation only",
    command: "scv",
    fixedArgs: ["server", "--stdio"],
    outputArgs: () => [],
    promptArgs: [],
    // Every nested side effect goes through the calling session's approval gate; there is nothing to bypass.
    fullPermissions: { args: [], env: {} },
    format: "text",
    session: {
      idChosenBy: "cli",
      startArgs: () => [],
      resumeArgs: () => [],
      resumePlacement: "options",
      transcripts: [],
    },
    // The nested SCV's own home is the private home itself: $SCV_HOME/agents/scv/config.toml, agents/, state/.
    stateDir: { env: "SCV_HOME", path: "" },
    ownVariables: [],
    extraEnv: {},
    installDirs: [],
    installDirsAfterPath: [".cargo/bin"],
    runningBinaryFirst: true,
    signIn: scvSignedIn,
    // `scv acp`, chosen with transport = "acp": another SCV as an ACP agent, its approvals relayed like any agent's.
    acp: { command: "scv", args: () => ["acp"], fullModes: ["approve-all"], fullEnv: {}, onlyWhenChosen: true },
  },
] as const satisfies readonly AgentDescriptor[];

const BY_NAME = new Map<string, AgentDescriptor>(DESCRIPTORS.map((d) => [d.name, d]));

export function descriptorFor(name: string): AgentDescriptor | undefined {
  return BY_NAME.get(name);
}

/** What each configurable agent takes, for config validation. */
export interface AgentCapabilities {
  model: boolean;
  effort: boolean;
  session: boolean;
}

export function capabilitiesOf(name: ConfigAgentName): AgentCapabilities | undefined {
  const d = descriptorFor(name);
  if (!d) return undefined;
  return { model: takes(d, "model"), effort: takes(d, "effort"), session: takes(d, "session") };
}

export function takes(d: AgentDescriptor, option: "model" | "effort" | "session"): boolean {
  // The nested SCV takes a model as its session's override (sent in session.start), not as arguments.
  if (option === "model") return !!d.modelArgs || d.backend === "nested-scv";
  if (option === "effort") return !!d.effortArgs;
  return !!d.session;
}

/** Every adapter's own variables, which no delegated agent inherits. */
export const ALL_OWN_VARIABLES: readonly (string | RegExp)[] = DESCRIPTORS.flatMap((d) => d.ownVariables);

/** The command that signs an agent in on the SCV host. */
export function loginCommand(name: string): string {
  return `scv agents login ${name}`;
}
