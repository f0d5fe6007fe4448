// The agent registry: one descriptor per delegated agent CLI. Everything SCV knows about an agent (its command
// line, what it takes, where its state lives, what it must not inherit, how it signs in, how its output reads)
// is here, so adding an agent is one more entry.
import type { AGENT_NAMES } from "../config/schema";
import { dshSignedIn, grokSignedIn, piSignedIn, scvSignedIn } from "./signin";

export type ConfigAgentName = (typeof AGENT_NAMES)[number];

/** How stdout reads: each format has a parser in ./formats. */
export type OutputFormat = "claude-stream-json" | "codex-json" | "pi-json" | "grok-json" | "text";

export interface SessionSupport {
  /** Who picks the CLI's session ID: SCV (a fresh UUID) or the CLI (reported in its event stream). */
  idChosenBy: "scv" | "cli";
  /** Arguments that start a conversation with the given ID (empty when the CLI picks it). */
  startArgs(id: string): string[];
  /** Arguments that continue the conversation with that ID. */
  resumeArgs(id: string): string[];
  /** Where resumeArgs go: with the other options, or right before the prompt (Codex's `resume <id>`). */
  resumePlacement: "options" | "beforePrompt";
  /** Transcript directories inside the private home, for `scv agents gc`. */
  transcripts: string[];
}

export interface SignInContext {
  /** The agent's private home ($SCV_HOME/agents/<name>). */
  home: string;
  /** The server environment after scrubbing, as the agent would see it. */
  env: Readonly<Record<string, string | undefined>>;
}

/** The agent's Agent Client Protocol server (see src/agents/acp). */
export interface AcpSupport {
  /** The server's executable, looked up like the CLI (the agent's install directories, then PATH). */
  command: string;
  /** The server's arguments; `full` is `permissions = "full"`. */
  args(full: boolean): string[];
  /** Session modes that mean full permissions, the first the agent offers being selected (`session/set_mode`). */
  fullModes: readonly string[];
  /** Variables for the server under `permissions = "full"`, on top of the CLI's. */
  fullEnv: Readonly<Record<string, string>>;
  /** Config option IDs for `model` and `effort`; absent: the agent takes no such selection over ACP. */
  modelOptions?: readonly string[];
  effortOptions?: readonly string[];
}

export interface AgentDescriptor {
  name: ConfigAgentName;
  /** The CLI once per turn, or a nested `scv server --stdio` for a whole conversation (src/agents/nested). */
  backend: "process-per-turn" | "nested-scv";
  product: string;
  /** The product line in the schema, after `<name> (<product>): `. */
  line: string;
  /** The model family `model` takes; absent when the agent takes no model. */
  modelFamily?: string;
  command: string;
  /** Default fixed arguments; `[agents.<name>] args` replaces them. */
  fixedArgs: readonly string[];
  /** Output-format arguments, after any full-permission switches. `outputFile` is Codex's -o file. */
  outputArgs(outputFile?: string): string[];
  modelArgs?(model: string): string[];
  effortArgs?(effort: string): string[];
  /** Arguments right before the prompt, for CLIs whose prompt is a flag value. */
  promptArgs: readonly string[];
  /** `permissions = "full"`: the CLI's own full-autonomy switches. */
  fullPermissions: { args: readonly string[]; env: Readonly<Record<string, string>> };
  format: OutputFormat;
  /** Codex writes its final message to a file named with -o. */
  usesOutputFile?: boolean;
  session?: SessionSupport;
  /** The agent's own state variable and its path inside the private home ("" is the home itself). */
  stateDir?: { env: string; path: string };
  /** Inherited variables this agent's configuration or credentials live in (removed from every agent). */
  ownVariables: readonly (string | RegExp)[];
  extraEnv: Readonly<Record<string, string>>;
  /** Per-user install directories, relative to the user's home, searched before PATH. */
  installDirs: readonly string[];
  /** Directories, relative to the user's home, searched after PATH (`~/.cargo/bin` for the nested SCV). */
  installDirsAfterPath?: readonly string[];
  /** The running SCV binary itself is this agent's executable when it is the compiled `scv` (the nested SCV). */
  runningBinaryFirst?: boolean;
  /** "cli": only the CLI knows (checked when a call fails); otherwise a local-file check. */
  signIn: "cli" | ((ctx: SignInContext) => boolean);
  /** Present when the agent also speaks ACP; `[agents.<name>] transport` chooses. */
  acp?: AcpSupport;
  /** Known-harmless stderr lines, left out of `stderr_tail` and error text. */
  harmlessStderr?: readonly RegExp[];
}

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
  },
] as const satisfies readonly AgentDescriptor[];

const BY_NAME = new Map<string, AgentDescriptor>(DESCRIPTORS.map((d) => [d.name, d]));

export function descriptorFor(name: string): AgentDescriptor | undefined {
  return BY_NAME.get(name);
}

/** What each configurable agent takes, for config validation; agents not built yet are declared here. */
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
