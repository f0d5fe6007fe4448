// `scv agents login|logout <name>`: sign a delegated agent in or out inside its private home. Claude Code,
// Codex and Grok run their own command with the exact environment their delegated runs get, terminal attached;
// DeepSeek Harness takes an API key read without echo; pi opens interactively for its own /login. No key is
// ever printed or accepted as an argument.
import { chmodSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { type AgentDescriptor, DESCRIPTORS, descriptorFor } from "../agents/descriptors";
import { storeDshKey } from "./dsh-key";
import { type AgentEnvironment, agentEnvironment, preparePrivateHome } from "../agents/environment";
import { checkKey, type Io, type LoginContext, LoginError, readHidden, readPiped } from "./login-io";
import { executableFor, settingsFor } from "../agents/offer";
import { dshCredentialsFile, piSignedIn } from "../agents/signin";


/** Each CLI's own sign-in subcommands; dsh and pi are handled by SCV itself. */
export const CLI_SIGNIN: Readonly<Record<string, { login: string[]; logout: string[]; status?: string[] }>> = {
  claude: { login: ["auth", "login"], logout: ["auth", "logout"], status: ["auth", "status"] },
  codex: { login: ["login"], logout: ["logout"], status: ["login", "status"] },
  grok: { login: ["login"], logout: ["logout"] },
};

const names = () => DESCRIPTORS.map((d) => d.name).join(", ");

export function requireAgent(name: string | undefined): AgentDescriptor {
  if (!name) throw new LoginError(`name an agent: one of ${names()}`, 2);
  const d = descriptorFor(name);
  if (!d) throw new LoginError(`unknown agent ${JSON.stringify(name)}; the agents are: ${names()}`, 2);
  return d;
}

/** `<name> [stray…] [-- extra…]`: arguments after `--` go to the agent's own command. */
export function splitArgs(raw: readonly string[]): { name?: string; stray: string[]; extra: string[] } {
  const dash = raw.indexOf("--");
  const before = dash < 0 ? [...raw] : raw.slice(0, dash);
  return { name: before[0], stray: before.slice(1), extra: dash < 0 ? [] : raw.slice(dash + 1) };
}

/** Refuses arguments before `--` without repeating them, since a mistyped one may be a key. */
export function refuseStray(d: AgentDescriptor, action: string, stray: readonly string[]): void {
  if (!stray.length) return;
  if (d.name === "dsh" && action === "login") {
    throw new LoginError(
      "a key is never accepted as an argument (it would stay in your shell history and the process list); run `scv agents login dsh` and type it at the prompt, or pipe it on stdin",
      2,
    );
  }
  throw new LoginError(`unexpected argument(s) after the agent name; pass the agent's own options after --, e.g. \`scv agents ${action} ${d.name} -- --device-auth\``, 2);
}

/**
 * The interpreter's script in `[agents.<name>] args`: leading arguments that are paths (as in
 * `command = "node"`, `args = ["/opt/cli.js", "-p"]`). The rest are the delegated runs' fixed arguments, which
 * sign-in commands do not take.
 */
export function launcherArgs(args: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const a of args ?? []) {
    if (a.startsWith("-") || !a.includes("/")) break;
    out.push(a);
  }
  return out;
}

export interface SignInCommand {
  argv: string[];
  environment: AgentEnvironment;
}

/** The argv and private environment for one of the agent's own commands; throws when it is not installed. */
export function signInCommand(ctx: LoginContext, d: AgentDescriptor, words: readonly string[], extra: readonly string[]): SignInCommand {
  const settings = settingsFor(ctx.config, d.name);
  const executable = executableFor(d, settings, ctx.env);
  if (!executable) throw new LoginError(notInstalledMessage(d, settings.command));
  const environment = agentEnvironment(d, { scvHome: ctx.scvHome, env: ctx.env, full: false });
  // The process runner drops these for delegated runs too: they would reach a Bun-built CLI as flags.
  delete environment.env.BUN_OPTIONS;
  delete environment.env.BUN_BE_BUN;
  return { argv: [executable, ...launcherArgs(settings.args), ...words, ...extra], environment };
}

/** Where the executable was looked for, for a `not installed` answer. */
export function missingExecutable(d: AgentDescriptor, command: string | undefined): string {
  if (command) return `[agents.${d.name}] command ${JSON.stringify(command)} is not an executable file`;
  const after = d.installDirsAfterPath ?? [];
  if (after.length) return `no ${JSON.stringify(d.command)} on PATH or in ${after.map((p) => `~/${p}`).join(", ")}`;
  return `no ${JSON.stringify(d.command)} in ${d.installDirs.map((p) => `~/${p}`).join(", ")} or PATH`;
}

export function notInstalledMessage(d: AgentDescriptor, command: string | undefined): string {
  return `${d.name} (${d.product}) is not installed: ${missingExecutable(d, command)}; install it or set [agents.${d.name}] command`;
}

function preparePrivate(e: AgentEnvironment): void {
  preparePrivateHome(e);
  // An existing home keeps whatever mode it had; credentials land here, so keep it private.
  chmodSync(e.home, 0o700);
}

/** Runs a command with the terminal attached and returns its exit status (128+n after signal n). */
export async function runAttached(cmd: SignInCommand): Promise<number> {
  preparePrivate(cmd.environment);
  let child;
  try {
    child = Bun.spawn(cmd.argv, { cwd: cmd.environment.home, env: cmd.environment.env, stdio: ["inherit", "inherit", "inherit"] });
  } catch (e) {
    throw new LoginError(`could not start ${cmd.argv[0]}: ${(e as Error).message}`);
  }
  // Ctrl-C on a terminal reaches the child's process group itself; other signals are passed on.
  const ttyInterrupt = !!process.stdin.isTTY;
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((sig) => {
    const h = () => {
      if (sig === "SIGINT" && ttyInterrupt) return;
      try {
        child.kill(sig);
      } catch {}
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  try {
    return await child.exited;
  } finally {
    for (const [sig, h] of handlers) process.off(sig, h);
  }
}

const defaultIo = (): Io => ({ stdin: process.stdin, stderr: process.stderr, stdout: process.stdout });

export async function agentLogin(ctx: LoginContext, raw: readonly string[], io: Io = defaultIo()): Promise<number> {
  const { name, stray, extra } = splitArgs(raw);
  const d = requireAgent(name);
  if (d.name === "pi" && stray.includes("--openai-compatible")) {
    if (extra.length) throw new LoginError("pi --openai-compatible takes no arguments after --", 2);
    const { loginPiOpenAiCompatible } = await import("./imports/pi");
    return loginPiOpenAiCompatible(ctx, stray, io);
  }
  refuseStray(d, "login", stray);
  if (d.name === "scv") {
    // The nested SCV signs in with a copy of SCV's own provider: the same as `scv agents import scv`.
    if (extra.length) throw new LoginError("scv login takes no arguments: it copies SCV's own active provider", 2);
    const { importScv } = await import("./imports/scv");
    return importScv(ctx, io);
  }
  if (d.name === "dsh") {
    if (extra.length) refuseStray(d, "login", extra);
    return loginDsh(ctx, d, io);
  }
  if (d.name === "pi") {
    const cmd = signInCommand(ctx, d, [], extra);
    io.stderr.write("Opening pi in SCV's private home for it: run /login, choose a provider and sign in, then /quit.\n");
    return runAttached(cmd);
  }
  const words = CLI_SIGNIN[d.name]!.login;
  return runAttached(signInCommand(ctx, d, words, extra));
}

export async function agentLogout(ctx: LoginContext, raw: readonly string[], io: Io = defaultIo()): Promise<number> {
  const { name, stray, extra } = splitArgs(raw);
  const d = requireAgent(name);
  refuseStray(d, "logout", stray);
  const own = CLI_SIGNIN[d.name];
  if (own) return runAttached(signInCommand(ctx, d, own.logout, extra));
  if (extra.length) throw new LoginError(`${d.name} logout takes no arguments; SCV removes its stored credential itself`, 2);
  const env = agentEnvironment(d, { scvHome: ctx.scvHome, env: ctx.env, full: false });
  if (d.name === "pi" || d.name === "scv") return logoutFileAgent(ctx, d.name, env, io);
  const file = dshCredentialsFile(env.home);
  const existed = removeFile(file);
  io.stdout.write(existed ? `${d.name}: signed out (removed ${file})\n` : `${d.name}: nothing to remove (no ${file})\n`);
  return 0;
}

/** pi: auth.json, the `scv` provider and a default pointing at it; the nested SCV: its config.toml. */
async function logoutFileAgent(ctx: LoginContext, name: "pi" | "scv", env: AgentEnvironment, io: Io): Promise<number> {
  const { forgetImport } = await import("./imports/index");
  let done: string[];
  if (name === "pi") {
    const { logoutPi } = await import("./imports/pi");
    done = logoutPi(env.stateDir!);
  } else {
    const file = join(env.home, "config.toml");
    done = removeFile(file) ? [`removed ${file}`] : [];
  }
  forgetImport(ctx.scvHome, name);
  io.stdout.write(done.length ? `${name}: signed out (${done.join("; ")})\n` : `${name}: nothing to remove\n`);
  if (name === "pi" && piSignedIn({ home: env.home, env: env.env })) {
    io.stdout.write("pi: a provider key remains in .pi/agent/models.json, so pi still counts as signed in\n");
  }
  return 0;
}

function removeFile(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new LoginError(`could not remove ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

// ---- DeepSeek Harness: an API key in its own credential file (./dsh-key) ----

async function loginDsh(ctx: LoginContext, d: AgentDescriptor, io: Io): Promise<number> {
  const key = io.stdin.isTTY ? await readHidden(io, "DeepSeek API key (input hidden): ") : await readPiped(io.stdin);
  checkKey(key);
  const environment = agentEnvironment(d, { scvHome: ctx.scvHome, env: ctx.env, full: false });
  preparePrivate(environment);
  const file = storeDshKey(environment.home, key);
  io.stdout.write(`dsh: API key stored in ${file} (mode 0600)\n`);
  return 0;
}
