// Known destructive payloads: commands SCV refuses to run whoever approves them. Checked on every reading of
// the command (raw, ANSI-stripped, NFKC-normalised), through wrappers (`sudo`, `env`, `timeout`, …) and into
// `bash -c`, `eval` and substitution bodies, so quoting tricks and look-alike characters do not hide them.
import { isAbsolute, resolve } from "node:path";
import { tokenize, type SimpleCommand, type Word } from "./tokenize";

export interface PathContext {
  workspace: string;
  home: string;
  scvHome: string;
}

/** Programs that run another command given after their own options. */
const WRAPPERS = new Set(["sudo", "doas", "env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout", "stdbuf", "ionice", "xargs", "busybox", "setsid", "chrt", "taskset", "unbuffer", "caffeinate", "watch"]);
/** Wrapper options that take a value as the next word. */
const WRAPPER_VALUE_OPTIONS = new Set(["-u", "-g", "-C", "-n", "-s", "-k", "-p", "-c", "-U", "-h", "-I", "-L", "-P", "-d", "-E"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "csh", "tcsh", "su"]);
const INTERPRETERS = new Set([...SHELLS, "python", "python3", "python2", "perl", "ruby", "node", "bun", "deno", "php", "lua", "source", "."]);
const FETCHERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lynx", "links"]);
const POWER = new Set(["shutdown", "reboot", "halt", "poweroff", "kexec"]);
const RAW_DISK = /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper\/|loop\d|sr\d|nbd\d)/;
const WRITE_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
/** Programs that delete, truncate or overwrite what their arguments name (for cp/mv/install/ln: the last). */
const WRITERS_ALL_ARGS = new Set(["rm", "tee", "truncate", "shred", "unlink", "rmdir", "chmod", "chown", "srm", "wipe"]);
const WRITERS_LAST_ARG = new Set(["cp", "mv", "install", "ln", "rsync"]);
const SYSTEM_DIRS = ["bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "opt", "root", "sbin", "srv", "sys", "usr", "var", "proc", "Users", "System", "Library"];
const FORK_BOMB = /([A-Za-z_:.][\w:.]*)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&/;
const MAX_DEPTH = 4;

/** Why `text` is refused outright, or nothing. */
export function destructiveReason(text: string, ctx: PathContext, depth = 0): string | undefined {
  if (FORK_BOMB.test(text)) return "it is a fork bomb (a function that starts copies of itself until the machine stops)";
  const parsed = tokenize(text);
  if (!parsed.ok) return depth < MAX_DEPTH ? fallbackReason(text, ctx) : undefined;
  const commands = parsed.parsed.commands;
  for (let i = 0; i < commands.length; i++) {
    const reason = commandReason(commands[i]!, ctx, depth) ?? pipeReason(commands, i);
    if (reason) return reason;
  }
  if (depth < MAX_DEPTH) {
    for (const nested of parsed.parsed.nested) {
      const reason = destructiveReason(nested, ctx, depth + 1);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** A command the tokenizer could not read: the quote-free text checked for the plainest payloads. */
function fallbackReason(text: string, ctx: PathContext): string | undefined {
  const plain = text.replace(/["'\\]/g, "");
  if (plain !== text) {
    const again = tokenize(plain);
    if (again.ok) return destructiveReason(plain, ctx, MAX_DEPTH);
  }
  if (/\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/.test(plain)) return "it pipes a download into a shell";
  return undefined;
}

/** The words after any wrappers (`sudo -u root rm` -> `rm`), with the program's base name first. */
function unwrapped(cmd: SimpleCommand): Word[] {
  let words = cmd.words;
  for (let guard = 0; guard < 8 && words.length; guard++) {
    const program = baseName(words[0]!.value);
    if (!WRAPPERS.has(program)) break;
    let i = 1;
    while (i < words.length) {
      const v = words[i]!.value;
      if (v === "--") {
        i++;
        break;
      }
      if (v.startsWith("-")) {
        i += WRAPPER_VALUE_OPTIONS.has(v) ? 2 : 1;
        continue;
      }
      if (program === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
        i++;
        continue;
      }
      if (program === "timeout" || program === "chrt" || program === "taskset" || program === "watch" && /^\d/.test(v)) {
        if (/^[\d.]+[smhd]?$|^0x[0-9a-f]+$/i.test(v)) {
          i++;
          continue;
        }
      }
      break;
    }
    words = words.slice(i);
  }
  return words;
}

function baseName(program: string): string {
  const slash = program.lastIndexOf("/");
  return (slash >= 0 ? program.slice(slash + 1) : program).toLowerCase();
}

function commandReason(cmd: SimpleCommand, ctx: PathContext, depth: number): string | undefined {
  for (const r of cmd.redirects) {
    if (!WRITE_REDIRECTS.has(r.op) || !r.target) continue;
    if (RAW_DISK.test(r.target.value)) return `it writes straight to the disk device ${r.target.value}`;
    if (insideScvHome(r.target, ctx)) return `it overwrites ${r.target.value}, SCV's own credentials and state`;
  }
  const words = unwrapped(cmd);
  if (!words.length) return undefined;
  const program = baseName(words[0]!.value);
  const args = words.slice(1);
  const values = args.map((w) => w.value);
  const positional = args.filter((w) => !w.value.startsWith("-") || w.value === "-");

  if (program === "rm") {
    if (values.includes("--no-preserve-root")) return "`rm --no-preserve-root` deletes the whole system";
    const recursive = values.some((v) => v === "--recursive" || /^-[A-Za-z]*[rR]/.test(v) && !v.startsWith("--"));
    const target = recursive ? positional.find((w) => rootOrHome(w, ctx)) : undefined;
    if (target) return `\`rm -r ${target.raw}\` deletes ${describeTarget(target, ctx)}`;
  }
  if (program === "chmod" || program === "chown" || program === "chgrp") {
    const recursive = values.some((v) => v === "--recursive" || /^-[A-Za-z]*R/.test(v) && !v.startsWith("--"));
    const target = recursive ? positional.find((w) => rootOrHome(w, ctx)) : undefined;
    if (target) return `\`${program} -R\` on ${target.raw} changes ${describeTarget(target, ctx)}`;
  }
  if (program.startsWith("mkfs") || program === "mke2fs" || program === "mkswap" || program === "wipefs") {
    return `\`${program}\` formats a disk`;
  }
  if (program === "dd") {
    const of = values.find((v) => v.startsWith("of=") && RAW_DISK.test(v.slice(3)));
    if (of) return `\`dd ${of}\` writes straight to a disk device`;
  }
  if ((program === "tee" || program === "cp" || program === "shred" || program === "cat" || program === "truncate") && positional.some((w) => RAW_DISK.test(w.value))) {
    return `\`${program}\` writes to a raw disk device`;
  }
  if (POWER.has(program)) return `\`${program}\` stops or restarts the machine`;
  if ((program === "init" || program === "telinit") && values.some((v) => v === "0" || v === "6")) return `\`${program} ${values.join(" ")}\` stops or restarts the machine`;
  if (program === "systemctl" && values.some((v) => ["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"].includes(v))) {
    return "`systemctl` stops or restarts the machine";
  }
  const scvTarget = writtenTargets(program, positional).find((w) => insideScvHome(w, ctx));
  if (scvTarget) return `\`${program}\` would overwrite or delete ${scvTarget.value}, SCV's own credentials and state`;
  if (program === "sed" && values.some((v) => v === "-i" || v.startsWith("--in-place") || /^-[A-Za-z]*i/.test(v) && !v.startsWith("--"))) {
    const t = positional.find((w) => insideScvHome(w, ctx));
    if (t) return `\`sed -i\` would overwrite ${t.value}, SCV's own credentials and state`;
  }
  if (INTERPRETERS.has(program)) {
    const fetched = words.find((w) => /(?:<\(|\$\(|`)\s*(?:sudo\s+)?(?:curl|wget)\b/.test(w.raw));
    if (fetched) return `it runs a download with ${program} without anyone reading it first`;
  }
  if (depth < MAX_DEPTH) {
    const inner = innerCommand(program, words);
    if (inner !== undefined) return destructiveReason(inner, ctx, depth + 1);
    if (SHELLS.has(program)) {
      for (const r of cmd.redirects) if (r.body !== undefined) {
        const reason = destructiveReason(r.body, ctx, depth + 1);
        if (reason) return reason;
      }
    }
  }
  return undefined;
}

/** `curl … | sh`: a download piped into a shell or interpreter later in the same pipeline. */
function pipeReason(commands: SimpleCommand[], i: number): string | undefined {
  const cmd = commands[i]!;
  if (cmd.after !== "|" && cmd.after !== "|&") return undefined;
  const words = unwrapped(cmd);
  if (!words.length || !INTERPRETERS.has(baseName(words[0]!.value))) return undefined;
  for (let j = i - 1; j >= 0; j--) {
    const w = unwrapped(commands[j]!);
    if (w.length && FETCHERS.has(baseName(w[0]!.value))) return `it pipes a download (${baseName(w[0]!.value)}) into ${baseName(words[0]!.value)}, running code nobody has read`;
    if (commands[j]!.after !== "|" && commands[j]!.after !== "|&") break;
  }
  return undefined;
}

/** The command text `bash -c TEXT`, `eval TEXT…` or `su -c TEXT` would run. */
function innerCommand(program: string, words: Word[]): string | undefined {
  if (program === "eval") return words.slice(1).map((w) => w.value).join(" ");
  if (!SHELLS.has(program)) return undefined;
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value;
    if (v === "-c" || /^-[A-Za-z]*c[A-Za-z]*$/.test(v) && !v.startsWith("--")) return words[i + 1]?.value;
  }
  return undefined;
}

function writtenTargets(program: string, positional: Word[]): Word[] {
  if (WRITERS_ALL_ARGS.has(program)) return positional;
  if (WRITERS_LAST_ARG.has(program) && positional.length > 1) return [positional.at(-1)!];
  return [];
}

/** The path a word names, with `~`, `$HOME` and `$SCV_HOME` spelled out, normalised; undefined if unknowable. */
export function pathOf(w: Word, ctx: PathContext): string | undefined {
  let p = w.raw.replace(/["']/g, "");
  p = p
    .replace(/^~(?=\/|$)/, ctx.home)
    .replace(/^\$\{?HOME\}?(?=\/|$)/, ctx.home)
    .replace(/^\$\{?SCV_HOME\}?(?=\/|$)/, ctx.scvHome);
  if (/[$`]/.test(p)) return undefined;
  p = p.replace(/\\(.)/g, "$1");
  return isAbsolute(p) ? resolve(p) : resolve(ctx.workspace, p);
}

function insideScvHome(w: Word, ctx: PathContext): boolean {
  const p = pathOf(w, ctx);
  return !!p && (p === ctx.scvHome || p.startsWith(`${ctx.scvHome}/`));
}

/** `/`, `/*`, `~`, `$HOME`, the home directory itself, or a top-level system directory, with or without `/*`. */
function rootOrHome(w: Word, ctx: PathContext): boolean {
  const raw = w.raw.replace(/["']/g, "").replace(/\/+/g, "/");
  if (/^(?:\/|\/\*|\/\.|~|~\/|~\/\*|\$\{?HOME\}?\/?\*?|\/\.\.?\/?)$/.test(raw)) return true;
  const p = pathOf({ ...w, raw: raw.replace(/\/\*$/, "") }, ctx);
  if (!p) return false;
  if (p === "/" || p === ctx.home || p === resolve(ctx.home, "..")) return true;
  return SYSTEM_DIRS.some((d) => p === `/${d}`);
}

function describeTarget(w: Word, ctx: PathContext): string {
  const p = pathOf({ ...w, raw: w.raw.replace(/["']/g, "").replace(/\/\*$/, "") }, ctx);
  if (p === ctx.home || /^(~|\$\{?HOME\}?)/.test(w.raw.replace(/["']/g, ""))) return "your whole home directory";
  if (p === "/") return "the whole system";
  return `the system directory ${p}`;
}
