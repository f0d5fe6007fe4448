// The shape of an agent descriptor (see ./descriptors for the registry itself): what SCV needs to know to run,
// sign in, and read one delegated agent.
import type { AGENT_NAMES } from "../config/schema";

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
  /**
   * Where each transcript is a folder rather than a file, for `scv agents gc`: every directory `depth` levels below
   * `path` is one conversation (Grok 1.0.41: `.grok/sessions/<workspace>/<session-id>/`), removed whole once its
   * newest file is past the cutoff, so a conversation is never left half deleted. Files beside those folders (an
   * index, a prompt history) are the CLI's own and stay.
   */
  transcriptFolders?: { path: string; depth: number }[];
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
  /** Used only with `transport = "acp"`: `auto` keeps the agent's own backend (the nested SCV's server). */
  onlyWhenChosen?: boolean;
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
