// The sandbox launcher (src/sandbox/launcher.ts) comes first: a sandboxed command pays only for bun:ffi.
if (process.argv[2] === "__sandbox") (await import("../sandbox/launcher")).runLauncher(process.argv.slice(3));

// The scv command line. `--version` answers before anything else loads, and each subcommand is imported
// only when it runs, so start-up stays fast.
import { agentConfigRules } from "../agents/config-rules";
import { registerConfigChecks } from "../config/checks";
import { VERSION } from "../version";
import { EXIT_CODES } from "./exit-codes";
import { isTuiInvocation } from "./tui";

const argv = process.argv.slice(2);

function isCompiled(): boolean {
  return Bun.main.startsWith("/$bunfs/");
}

async function main() {
  if (argv[0] === "--version" || argv[0] === "-V") {
    // console.log, not process.stdout: creating the Node stream costs about 20 ms of start-up.
    console.log(`scv ${VERSION}`);
    return;
  }
  // BUN_OPTIONS would reach the compiled runtime as extra flags; run once more without it so the binary
  // behaves the same whatever the caller's environment holds.
  if (isCompiled() && (process.env.BUN_OPTIONS || process.execArgv.length > 0) && !process.env.SCV_REEXEC) {
    const env: Record<string, string | undefined> = { ...process.env, SCV_REEXEC: "1" };
    delete env.BUN_OPTIONS;
    delete env.BUN_BE_BUN;
    const child = Bun.spawn([process.execPath, ...argv], { env, stdio: ["inherit", "inherit", "inherit"] });
    for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => child.kill(sig));
    process.exit(await child.exited);
  }
  delete process.env.SCV_REEXEC;
  // config/ cannot import the agents' rules about their own settings; it is handed them before anything loads.
  registerConfigChecks(agentConfigRules);
  // The binary starts with the JIT holding back (scripts/build.ts, --compile-jit-policy): start-up code runs
  // once, and compiling it only competes with it for the CPU. After a second the JIT works as usual.
  setTimeout(() => Bun.unsafe.setJITPolicy(1), 1000).unref();
  if (argv.length === 2 && argv[0] === "server" && argv[1] === "--stdio") {
    // The protocol server is what nested SCV children and clients spawn: skip the CLI parser.
    const { runStdioServer } = await import("./server-stdio");
    return runStdioServer();
  }
  if (argv.length === 1 && argv[0] === "acp") {
    // Editors spawn the ACP agent and wait for `initialize`: like the protocol server, it skips the CLI parser.
    const { runAcpAgent } = await import("./acp-stdio");
    return runAcpAgent();
  }
  // `scv` alone in a terminal opens the interactive session; piped or redirected, it keeps printing help.
  // node:tty loads only for a bare `scv`: it costs about 3 ms, which every other command would pay at start.
  const inTerminal = async () => {
    const { isatty } = await import("node:tty");
    return isatty(0) && isatty(1);
  };
  if ((argv.length === 0 && (await inTerminal())) || (argv.length > 0 && isTuiInvocation(argv))) {
    const { runTuiCommand } = await import("./tui");
    process.exit(await runTuiCommand(argv));
  }
  const { defineCommand, runCli } = await import("./command");
  const lazy = (load: () => Promise<{ default: unknown }>) => () => load().then((m) => m.default as never);
  const root = defineCommand({
    meta: { name: "scv", version: VERSION, description: "a personal agent host" },
    notes: EXIT_CODES,
    subCommands: {
      tui: lazy(() => import("./tui")),
      exec: lazy(() => import("./exec")),
      server: lazy(() => import("./server")),
      acp: lazy(() => import("./acp")),
      config: lazy(() => import("./config")),
      agents: lazy(() => import("./agents")),
      daemon: lazy(() => import("./daemon")),
      status: lazy(() => import("./status")),
      doctor: lazy(() => import("./doctor")),
      skills: lazy(() => import("./skills")),
      sessions: lazy(() => import("./sessions")),
      memory: lazy(() => import("./memory")),
      channels: lazy(() => import("./channels")),
      rules: lazy(() => import("./rules")),
      hooks: lazy(() => import("./hooks")),
      commands: lazy(() => import("./commands")),
      import: lazy(() => import("./import")),
      usage: lazy(() => import("./usage")),
      mcp: lazy(() => import("./mcp")),
      schedules: lazy(() => import("./schedules")),
      web: lazy(() => import("./web")),
      sandbox: lazy(() => import("./sandbox")),
    },
  });
  await runCli(root, argv);
}

await main();
