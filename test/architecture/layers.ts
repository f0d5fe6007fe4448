// Which concern may import which: each line may import the lines below it, never one beside or above it.
// docs/architecture.md draws the same picture; change both together.
export const LAYERS: readonly (readonly string[])[] = [
  // The floor: helpers with no concern of their own, importing nothing of SCV's but each other below.
  ["version", "digest", "lazy-schema", "fast-check", "user-home", "errors", "text", "throttle", "terminal"],
  ["fs"], // the safe reader, private files, workspace path policy
  // Configuration and the concerns that need nothing but it.
  ["config", "plan"], // plan: the task-list shape that protocol, sessions and clients share
  ["protocol", "provider", "net", "skills", "chatlog", "process", "memory", "guard", "command-files"], // command-files: the person's slash commands and agents as Markdown files
  ["sandbox"], // the kernel sandbox: runs a command under a policy through the process runner
  ["sessions"],
  // The session contract (types only, from config, protocol and sessions): what every session concern takes.
  ["scope"],
  ["approval", "agents", "ledger", "hooks"], // hooks: the user's programs at a session's moments (src/hooks)
  ["daemon"], // the process that hosts (socket, reconcile); what it runs is wired in by the layers above
  ["schedules"], // stored schedules, their trigger maths and the runner; the daemon hosts it (channels wire the fires)
  ["accounts", "tools"],
  ["mcp", "checkpoints"], // MCP servers as a tool source; checkpoints of the workspace (its plans use the line diff): above the tool contract, below the server
  ["server", "doctor"],
  ["channels", "tui", "acp-agent"],
  ["web"], // the daemon's web page: pages over the channels, the ledger, schedules, memory and doctor
  ["cli"],
];

/** The floor: the first two layers. Nothing there imports a concern folder. */
export const FLOOR_LAYERS = 2;
