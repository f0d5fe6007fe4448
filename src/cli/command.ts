// The strict command-line layer on top of citty: each command declares its options in one table in citty's shape
// (meta, args with type/alias/description, subCommands, run), so adding a flag is one line, and citty's parseArgs
// turns the words into values. What citty leaves out is ours: anything not in the table — an unknown option, a
// missing value, a word too many — is a usage error (exit 2) that names the word and shows the usage line, the
// way codex, claude and git behave; `scv help [COMMAND]`; colour only on a terminal; commands that read their
// own words (ownArgs); subcommands loaded only when they run.
import { parseArgs as cittyParseArgs } from "citty";
import { fstatSync } from "node:fs";
import { styleFor } from "../terminal/style";

export const USAGE_EXIT = 2;

// A subset of citty's ArgDef (every table goes straight to citty's parseArgs, which type-checks it): a
// description always, one short alias, no defaults or required options, which the help and checks here do not show.
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

// citty's command shape, narrowed to plain meta and args and widened by notes and ownArgs; citty's own
// defineCommand would refuse those two fields, so this identity function types them instead.
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

/**
 * Parses one command's own words against its table; throws UsageError naming the first bad word.
 *
 * citty's parseArgs does the parsing: short aliases to names, booleans and strings, `--name=value`, the `--`
 * separator, positionals in declared order. It is lenient by design (node's parseArgs with strict: false):
 * an unknown option becomes one more value, `-my` reads as `-m y`, `--no-yes` and `--yes=false` turn a flag
 * off, `--outputLastMessage` matches `--output-last-message`, and it cannot say which word it did not know.
 * So every word is checked here first, and only a command line that passes reaches citty.
 */
export function parseArgs<A extends ArgsDef>(cmd: CommandDef<A>, words: string[], path: string[]): ParsedArgs<A> {
  const defs = cmd.args ?? ({} as A);
  refuseStrayWords(cmd, words, path);
  const parsed = cittyParseArgs(words, defs);
  // Only the table's own names: citty also answers to each alias, camelCase spelling and `_`.
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(defs)) if (parsed[name] !== undefined) out[name] = parsed[name];
  return out as ParsedArgs<A>;
}

/** Every option must be one of the table's, in a form citty reads the way the person meant; words must fit. */
function refuseStrayWords(cmd: CommandDef<any>, words: string[], path: string[]): void {
  const defs = Object.entries(cmd.args ?? {}) as [string, ArgDef][];
  const fail = (message: string): never => {
    throw new UsageError(message, cmd, path);
  };
  const byLong = new Map(defs.filter(([, d]) => d.type !== "positional"));
  const byShort = new Map(defs.flatMap(([name, d]) => (d.type !== "positional" && d.alias ? [[d.alias, name] as const] : [])));
  const positionals = defs.filter(([, d]) => d.type === "positional");
  const given: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      // Words after `--` are never options: `scv exec -- "-x is a flag?"`.
      given.push(...words.slice(i + 1));
      break;
    }
    if (!isOptionLike(word)) {
      given.push(word);
      continue;
    }
    const eq = word.indexOf("=");
    const flag = eq > 0 ? word.slice(0, eq) : word;
    const isLong = flag.startsWith("--");
    const name = isLong ? flag.slice(2) : flag.length === 2 ? byShort.get(flag.slice(1)) : undefined;
    const def = name === undefined ? undefined : byLong.get(name);
    if (!def) return fail(`unknown option ${JSON.stringify(flag)}`);
    if (def.type === "boolean") {
      if (eq > 0) fail(`option ${flag} takes no value (got ${JSON.stringify(word)})`);
      continue;
    }
    // citty (like POSIX getopt) would read `-m=gpt` as the value "=gpt".
    if (eq > 0 && !isLong) fail(`option ${flag} takes its value as the next word: ${flag} ${word.slice(eq + 1)} or --${name}=${word.slice(eq + 1)}`);
    if (eq > 0) continue;
    const value = words[++i];
    if (value === undefined) fail(`option ${flag} needs a value`);
    // An option word where a value belongs is almost always a forgotten value (`-m --json`); citty would also
    // read a value such as `--no-x` as turning x off. A value that does start with a dash goes after `=`.
    if (isOptionLike(value!)) fail(`option ${flag} needs a value (got ${JSON.stringify(value)}; write --${name}=${value} if that is the value)`);
  }
  if (given.length > positionals.length) {
    const extra = given[positionals.length]!;
    const quoteHint =
      positionals.length === 1 && given.length > 1 ? `; quote a prompt of several words: ${path.join(" ")} ${JSON.stringify(given.join(" "))}` : "";
    fail(`unexpected argument ${JSON.stringify(extra)}${quoteHint}`);
  }
  positionals.forEach(([name, def], i) => {
    if (given[i] === undefined && def.type === "positional" && def.required !== false) fail(`missing ${name.toUpperCase()}`);
  });
}

/** `-x`, `--name`, `--name=value`; a lone `-` is a word (stdin). */
function isOptionLike(word: string): boolean {
  return word.startsWith("-") && word !== "-";
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

/**
 * The full --help text; coloured only when `stream` is a terminal and NO_COLOR is unset. Not citty's
 * renderUsage: its layout (`USAGE scv exec [OPTIONS] <PROMPT>`, `-m, --model=<model>`) is not the one usage
 * errors and scripts quote, and it decides colour once from the environment (TEST, CI, NO_COLOR=1), never from
 * whether the output is a terminal.
 */
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
 * Not citty's runMain or runCommand: they parse each level before any check can see its words, report
 * errors as exit 1 with their own wording and no command path for the usage line, and have no `help` word
 * or ownArgs; what would have to wrap them is this dispatch already.
 */
export async function runCli(root: CommandDef<any>, argv: string[]): Promise<void> {
  // `exec` creates stdout only when it first writes (lazyStdio): Node's stream costs milliseconds before the
  // first model request. It watches for the closed pipe then.
  if (argv[0] !== "exec") watchClosedStdout();
  try {
    await dispatch(root, argv, [root.meta.name]);
  } catch (e) {
    exitOnClosedPipe(e);
    if (!(e instanceof UsageError)) throw e;
    reportUsageError(e);
    process.exitCode = USAGE_EXIT;
  }
}

let stdoutWatched = false;

/** `scv schedules list | head -1`: the reader left, which ends the listing, quietly (as `ls | head` does). */
export function watchClosedStdout(): void {
  if (stdoutWatched) return;
  stdoutWatched = true;
  process.stdout.on("error", (e) => {
    exitOnClosedPipe(e);
    throw e;
  });
}

/**
 * process.stdout or process.stderr created at the first write, not before: creating Node's stream (and its
 * stream machinery) costs milliseconds on the way to `scv exec`'s first request. A pipe or a file is never a
 * terminal, so asking `isTTY` creates the stream only for a character device.
 */
export function lazyStdio(fd: 1 | 2): { write(s: string): boolean; readonly isTTY: boolean; readonly columns: number | undefined } {
  let stream: NodeJS.WriteStream | undefined;
  const real = (): NodeJS.WriteStream => {
    if (stream) return stream;
    if (fd === 1) watchClosedStdout();
    return (stream = fd === 1 ? process.stdout : process.stderr);
  };
  let charDevice: boolean | undefined;
  const maybeTerminal = () => {
    if (charDevice === undefined) {
      try {
        charDevice = fstatSync(fd).isCharacterDevice();
      } catch {
        charDevice = false;
      }
    }
    return charDevice;
  };
  return {
    write: (s) => real().write(s),
    get isTTY() {
      return maybeTerminal() && !!real().isTTY;
    },
    get columns() {
      return maybeTerminal() ? real().columns : undefined;
    },
  };
}

/** A write to a closed pipe (EPIPE) ends the command with status 0 and no trace; anything else is rethrown. */
function exitOnClosedPipe(e: unknown): void {
  if ((e as NodeJS.ErrnoException | undefined)?.code === "EPIPE") process.exit(0);
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
