// A small, strict command-line layer: each command declares its options in one table (adding a flag is one
// line), and anything else — an unknown option, a missing value, a word too many — is a usage error (exit 2)
// that names the word and shows the usage line, the way codex, claude and git behave. Definitions keep citty's
// shape (meta, args with type/alias/description, subCommands, run), so flags written the citty way carry over.
import { styleFor } from "./style";

export const USAGE_EXIT = 2;

export type ArgDef =
  | { type: "boolean"; description: string; alias?: string }
  | { type: "string"; description: string; alias?: string; valueHint?: string }
  | { type: "positional"; description: string; required?: boolean };
export type ArgsDef = Record<string, ArgDef>;

type ValueOf<D extends ArgDef> = D extends { type: "boolean" }
  ? boolean | undefined
  : D extends { type: "positional"; required: false }
    ? string | undefined
    : D extends { type: "positional" }
      ? string
      : string | undefined;
export type ParsedArgs<A extends ArgsDef> = { [K in keyof A]: ValueOf<A[K]> };

export interface RunContext<A extends ArgsDef> {
  args: ParsedArgs<A>;
  /** The words this command received, after its name. */
  rawArgs: string[];
}

type Lazy<T> = T | (() => Promise<T>);

export interface CommandDef<A extends ArgsDef = ArgsDef> {
  meta: { name: string; description: string; version?: string };
  args?: A;
  /** Text shown at the end of --help (for example exit codes). */
  notes?: string;
  /** The command checks its own words in `rawArgs` and refuses strays itself (with exit 2). */
  ownArgs?: boolean;
  subCommands?: Record<string, Lazy<CommandDef<any>>>;
  run?: (ctx: RunContext<A>) => unknown;
}

export function defineCommand<A extends ArgsDef = {}>(def: CommandDef<A>): CommandDef<A> {
  return def;
}

export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: CommandDef<any>,
    readonly path: string[],
  ) {
    super(message);
    this.name = "UsageError";
  }
}

async function resolve<T>(value: Lazy<T>): Promise<T> {
  return typeof value === "function" ? (value as () => Promise<T>)() : value;
}

const HELP_FLAGS = new Set(["-h", "--help"]);

/** Parses one command's own words against its table; throws UsageError naming the first bad word. */
export function parseArgs<A extends ArgsDef>(cmd: CommandDef<A>, words: string[], path: string[]): ParsedArgs<A> {
  const defs = Object.entries(cmd.args ?? {}) as [string, ArgDef][];
  const fail = (message: string): never => {
    throw new UsageError(message, cmd, path);
  };
  const byLong = new Map(defs.filter(([, d]) => d.type !== "positional"));
  const byShort = new Map(defs.flatMap(([name, d]) => (d.type !== "positional" && d.alias ? [[d.alias, name] as const] : [])));
  const positionals = defs.filter(([, d]) => d.type === "positional");
  const out: Record<string, unknown> = {};
  const given: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      // Words after `--` are never options: `scv exec -- "-x is a flag?"`.
      given.push(...words.slice(i + 1));
      break;
    }
    if (word.startsWith("-") && word !== "-") {
      const eq = word.indexOf("=");
      const flag = eq > 0 ? word.slice(0, eq) : word;
      const inline = eq > 0 ? word.slice(eq + 1) : undefined;
      const name = flag.startsWith("--") ? flag.slice(2) : flag.length === 2 ? byShort.get(flag.slice(1)) : undefined;
      const def = name === undefined ? undefined : byLong.get(name);
      if (!def) fail(`unknown option ${JSON.stringify(flag)}`);
      if (def!.type === "boolean") {
        if (inline !== undefined) fail(`option ${flag} takes no value (got ${JSON.stringify(word)})`);
        out[name!] = true;
      } else {
        const value = inline ?? words[++i];
        if (value === undefined) fail(`option ${flag} needs a value`);
        out[name!] = value;
      }
      continue;
    }
    given.push(word);
  }
  if (given.length > positionals.length) {
    const extra = given[positionals.length]!;
    const quoteHint =
      positionals.length === 1 && given.length > 1 ? `; quote a prompt of several words: ${path.join(" ")} ${JSON.stringify(given.join(" "))}` : "";
    fail(`unexpected argument ${JSON.stringify(extra)}${quoteHint}`);
  }
  positionals.forEach(([name, def], i) => {
    if (given[i] !== undefined) out[name] = given[i];
    else if (def.type === "positional" && def.required !== false) fail(`missing ${name.toUpperCase()}`);
  });
  return out as ParsedArgs<A>;
}

/** The one-line usage: `scv exec [options] PROMPT`. */
export function usageLine(cmd: CommandDef<any>, path: string[]): string {
  const defs = Object.entries(cmd.args ?? {}) as [string, ArgDef][];
  const parts = [...path, "[options]"];
  for (const [name, d] of defs) {
    if (d.type === "positional") parts.push(d.required === false ? `[${name.toUpperCase()}]` : name.toUpperCase());
  }
  if (cmd.subCommands) parts.push("COMMAND");
  return parts.join(" ");
}

/** The full --help text; coloured only when `stream` is a terminal and NO_COLOR is unset. */
export async function helpText(cmd: CommandDef<any>, path: string[], stream: { isTTY?: boolean }): Promise<string> {
  const s = styleFor(stream);
  const defs = Object.entries(cmd.args ?? {}) as [string, ArgDef][];
  const lines = [`${s.bold(path.join(" "))}: ${cmd.meta.description}`, "", `${s.bold("Usage:")} ${usageLine(cmd, path)}`];
  const table = (title: string, rows: [string, string][]) => {
    if (!rows.length) return;
    const width = Math.max(...rows.map(([left]) => left.length));
    lines.push("", s.bold(title));
    for (const [left, right] of rows) lines.push(`  ${s.cyan(left.padEnd(width))}  ${right}`);
  };
  table(
    "Arguments:",
    defs.filter(([, d]) => d.type === "positional").map(([name, d]) => [name.toUpperCase(), d.description]),
  );
  const options: [string, string][] = defs.flatMap(([name, d]): [string, string][] => {
    if (d.type === "positional") return [];
    const short = d.alias ? `-${d.alias}, ` : "    ";
    const value = d.type === "string" ? ` ${d.valueHint ?? name.toUpperCase().replace(/-/g, "_")}` : "";
    return [[`${short}--${name}${value}`, d.description]];
  });
  options.push(["-h, --help", "show this help"]);
  if (path.length === 1) options.push(["-V, --version", "print the version"]);
  table("Options:", options);
  if (cmd.subCommands) {
    const rows: [string, string][] = [];
    for (const [name, sub] of Object.entries(cmd.subCommands)) rows.push([name, (await resolve(sub)).meta.description]);
    if (path.length === 1) rows.push(["help", "show help for a command: scv help [COMMAND]"]);
    table("Commands:", rows);
    lines.push("", `Run '${path.join(" ")} COMMAND --help' for a command's options.`);
  }
  if (cmd.notes) lines.push("", cmd.notes);
  return `${lines.join("\n")}\n`;
}

async function findSub(cmd: CommandDef<any>, name: string, path: string[]): Promise<CommandDef<any>> {
  const sub = cmd.subCommands?.[name];
  if (!sub || !Object.hasOwn(cmd.subCommands!, name)) {
    const known = Object.keys(cmd.subCommands ?? {}).join(", ");
    throw new UsageError(`unknown command ${JSON.stringify(name)} (commands: ${known})`, cmd, path);
  }
  return resolve(sub);
}

/** Prints a usage error the same way for every command: the message, the usage line, where help is. */
export function reportUsageError(e: UsageError, stderr: { write(s: string): unknown; isTTY?: boolean } = process.stderr): void {
  const s = styleFor(stderr);
  const name = e.path.join(" ");
  stderr.write(`${s.red(`${name}: ${e.message}`)}\n${s.bold("Usage:")} ${usageLine(e.command, e.path)}\nRun '${name} --help' for more.\n`);
}

/**
 * Runs `argv` against the root command: `scv help [COMMAND…]`, `-h/--help` at any level, `-V/--version` at the
 * top, subcommands by their first word. Usage errors are printed here and set exit status 2.
 */
export async function runCli(root: CommandDef<any>, argv: string[]): Promise<void> {
  try {
    await dispatch(root, argv, [root.meta.name]);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    reportUsageError(e);
    process.exitCode = USAGE_EXIT;
  }
}

async function dispatch(cmd: CommandDef<any>, words: string[], path: string[]): Promise<void> {
  if (path.length === 1 && words[0] === "help") return showHelpFor(cmd, words.slice(1), path);
  if (path.length === 1 && words.length === 1 && (words[0] === "-V" || words[0] === "--version")) {
    console.log(`${cmd.meta.name} ${cmd.meta.version ?? ""}`.trim());
    return;
  }
  const dashDash = words.indexOf("--");
  const own = dashDash < 0 ? words : words.slice(0, dashDash);
  if (cmd.subCommands) {
    const at = own.findIndex((w) => !w.startsWith("-"));
    if (at < 0) {
      if (own.some((w) => HELP_FLAGS.has(w)) || (path.length === 1 && !own.length)) return void process.stdout.write(await helpText(cmd, path, process.stdout));
      const bad = own[0];
      throw new UsageError(bad ? `unknown option ${JSON.stringify(bad)}` : "a command is required", cmd, path);
    }
    if (at > 0 && !own.slice(0, at).every((w) => HELP_FLAGS.has(w))) throw new UsageError(`unknown option ${JSON.stringify(own[0])}`, cmd, path);
    const name = own[at]!;
    return dispatch(await findSub(cmd, name, path), words.slice(at + 1), [...path, name]);
  }
  if (own.some((w) => HELP_FLAGS.has(w))) return void process.stdout.write(await helpText(cmd, path, process.stdout));
  const args = cmd.ownArgs ? ({} as ParsedArgs<ArgsDef>) : parseArgs(cmd, words, path);
  await cmd.run?.({ args, rawArgs: words });
}

async function showHelpFor(root: CommandDef<any>, names: string[], path: string[]): Promise<void> {
  let cmd = root;
  const at = [...path];
  for (const name of names) {
    cmd = await findSub(cmd, name, at);
    at.push(name);
  }
  process.stdout.write(await helpText(cmd, at, process.stdout));
}
