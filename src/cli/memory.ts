// `scv memory show|edit|clear [--project]`: the owner's memory files (src/memory) as owner sessions use them.
// Without --project: USER.md; with it: the notes of the workspace here (--cwd), keyed by its real path.
import { chmodSync, closeSync, constants, lstatSync, openSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { findSecretShape } from "../text/redact";
import { ConfigError, loadConfig, scvHome } from "../config/load";
import { ensurePrivateDir } from "../fs/private-file";
import { confirm } from "./confirm";
import { defineCommand } from "./command";
import { printable } from "./sessions";
import type { MemoryPlace, MemoryScope } from "../memory/index";

const common = {
  project: { type: "boolean", description: "this workspace's project notes instead of USER.md", alias: "p" },
  cwd: { type: "string", description: "the workspace whose project notes to use (default: current directory)" },
} as const;

function fail(command: string, message: string, code = 1): void {
  process.stderr.write(`scv memory ${command}: ${message}\n`);
  process.exitCode = code;
}

/** The memory place for this workspace, or a failure already reported. */
function placeFor(command: string, cwd: string | undefined): MemoryPlace | undefined {
  let workspace: string;
  try {
    workspace = realpathSync(cwd ?? process.cwd());
    if (!statSync(workspace).isDirectory()) throw new Error("not a directory");
  } catch {
    fail(command, `${JSON.stringify(cwd ?? process.cwd())} is not an existing directory; pass the workspace with --cwd`, 2);
    return undefined;
  }
  try {
    const { config } = loadConfig({ cwd: workspace });
    return { home: scvHome(), workspace, config: config.memory };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    fail(command, e.message, 78);
    return undefined;
  }
}

const scopeOf = (project: boolean | undefined): MemoryScope => (project ? "project" : "user");

function title(scope: MemoryScope, place: MemoryPlace): string {
  return scope === "user" ? "USER.md" : `project notes for ${place.workspace}`;
}

const show = defineCommand({
  meta: { name: "show", description: "Print USER.md (or with --project, this workspace's notes) as sessions see it" },
  args: common,
  async run({ args }) {
    const place = placeFor("show", args.cwd);
    if (!place) return;
    const { readMemory, readMemoryWhole, usageLine } = await import("../memory/index");
    const scope = scopeOf(args.project);
    const state = readMemory(place, scope);
    process.stderr.write(`${title(scope, place)}: ${usageLine(state)} · ${state.file}\n`);
    if (state.notice) process.stderr.write(`note: ${state.notice}\n`);
    let whole: string;
    try {
      whole = readMemoryWhole(place, scope);
    } catch (e) {
      return fail("show", (e as Error).message);
    }
    if (!whole) process.stderr.write(`nothing saved yet; add notes with \`scv memory edit${args.project ? " --project" : ""}\` or ask SCV to remember something\n`);
    process.stdout.write(printable(whole));
  },
});

/** $VISUAL, else $EDITOR, as git picks its editor. */
function editorCommand(env: NodeJS.ProcessEnv): string | undefined {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || undefined;
}

const edit = defineCommand({
  meta: { name: "edit", description: "Open USER.md (or with --project, this workspace's notes) in $VISUAL or $EDITOR" },
  args: common,
  async run({ args }) {
    const place = placeFor("edit", args.cwd);
    if (!place) return;
    const editor = editorCommand(process.env);
    if (!editor) return fail("edit", "no editor: set VISUAL or EDITOR (for example EDITOR=nano), or edit the file `scv memory show` names", 2);
    const { memoryFile, readMemory } = await import("../memory/index");
    const scope = scopeOf(args.project);
    const file = memoryFile(place, scope);
    const problem = prepare(file);
    if (problem) return fail("edit", problem);
    // The editor owns the terminal until it exits: Ctrl-C is its to handle, not a reason to leave it behind.
    const ignore = () => {};
    process.on("SIGINT", ignore);
    let code: number;
    try {
      const child = Bun.spawn(["/bin/sh", "-c", `${editor} "$1"`, "scv-memory-edit", file], { stdio: ["inherit", "inherit", "inherit"] });
      code = await child.exited;
    } finally {
      process.off("SIGINT", ignore);
    }
    tighten(file);
    if (code !== 0) fail("edit", `the editor (${editor}) exited with status ${code}; the file is as it left it: ${file}`);
    const state = readMemory(place, scope);
    process.stderr.write(`${title(scope, place)}: ${state.size} of ${state.cap} bytes · ${file}\n`);
    if (state.notice) process.stderr.write(`note: ${state.notice}\n`);
    const secret = state.text ? findSecretShape(state.text) : undefined;
    if (secret) process.stderr.write(`note: the file looks like it holds ${secret}; every owner session's requests carry it, so remove it\n`);
  },
});

/** The file exists as a private regular file before the editor opens it; a problem is returned as a message. */
function prepare(file: string): string | undefined {
  ensurePrivateDir(join(file, ".."));
  try {
    const st = lstatSync(file);
    if (!st.isFile()) return `${file} is not a regular file (a link, a directory or a special file); replace it with a regular file`;
    return undefined;
  } catch {
    // missing: made empty below
  }
  closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  return undefined;
}

/** Editors that save by writing a new file take the umask's mode: the file goes back to 0600. */
function tighten(file: string): void {
  try {
    if (lstatSync(file).isFile()) chmodSync(file, 0o600);
  } catch {
    // removed in the editor: nothing to tighten
  }
}

const clear = defineCommand({
  meta: { name: "clear", description: "Remove USER.md (or with --project, this workspace's notes); asks first unless --yes" },
  args: { ...common, yes: { type: "boolean", description: "clear without asking", alias: "y" } },
  async run({ args }) {
    const place = placeFor("clear", args.cwd);
    if (!place) return;
    const { clearMemory, memoryFile, readMemory, usageLine } = await import("../memory/index");
    const scope = scopeOf(args.project);
    const state = readMemory(place, scope);
    const file = memoryFile(place, scope);
    if (!exists(file)) {
      process.stderr.write(`${title(scope, place)} is already empty (${file})\n`);
      return;
    }
    const what = `${title(scope, place)} (${usageLine(state)}, ${file})`;
    if (!args.yes) {
      const { isatty } = await import("node:tty");
      if (!isatty(0)) return fail("clear", `would remove ${what}; pass --yes to clear it without a terminal to ask on`, 2);
      if (!(await confirm(`Remove ${what}? It cannot be undone. [y/N] `))) {
        process.stderr.write("left as it was\n");
        return;
      }
    }
    if (!clearMemory(place, scope)) return fail("clear", `could not remove ${file}; check that it is a file you own`);
    process.stderr.write(`cleared ${what}\n`);
  },
});

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

export default defineCommand({
  meta: { name: "memory", description: "What SCV remembers about you (USER.md) and each project, for owner sessions" },
  subCommands: { show, edit, clear },
});
