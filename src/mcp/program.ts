// Whether a stdio server's program can be found and run, without running it: the command resolved as the
// server's start would resolve it (a path against its directory, else the PATH it is given), a regular file
// SCV may execute, and for a script the interpreter its `#!` line names (through `/usr/bin/env` too).
import { accessSync, closeSync, constants, openSync, readSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join, resolve } from "node:path";
import type { Launch } from "./launch";

export type ProgramCheck = { ok: true; path: string; interpreter?: string } | { ok: false; why: string };

/** Finds `command` as a program: a path (relative to `cwd`), else the first executable on `path`. */
function locate(command: string, cwd: string, path: string): string | undefined {
  if (command.includes("/")) return isAbsolute(command) ? command : resolve(cwd, command);
  let present: string | undefined; // a file of that name that cannot be run: named when nothing better is found
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    const why = runnable(candidate);
    if (why === undefined) return candidate;
    if (!present && !why.endsWith("does not exist")) present = candidate;
  }
  return present;
}

/** Why the file cannot be run, or undefined when it can. */
function runnable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return `${file} is not a regular file`;
  } catch {
    return `${file} does not exist`;
  }
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return `${file} is not executable (chmod +x it, or run it through its interpreter)`;
  }
  return undefined;
}

/** The `#!` line's interpreter and its first argument, when the file starts with one. */
function shebang(file: string): string[] | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const head = Buffer.alloc(256);
    const n = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, n).toString("latin1");
    if (!text.startsWith("#!")) return undefined;
    return text.slice(2).split("\n", 1)[0]!.trim().split(/\s+/).filter(Boolean);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function checkProgram(launch: Extract<Launch, { kind: "stdio" }>): ProgramCheck {
  const command = launch.argv[0]!;
  const path = launch.env.PATH ?? "";
  const found = locate(command, launch.cwd, path);
  if (!found) return { ok: false, why: `${command} is not found on the PATH the server gets (${path || "empty"})` };
  const why = runnable(found);
  if (why) return { ok: false, why };
  const line = shebang(found);
  if (!line?.length) return { ok: true, path: found };
  // `#!/usr/bin/env node` (or `env -S node --flag`): the interpreter is looked up on the PATH.
  const viaEnv = basename(line[0]!) === "env";
  const name = viaEnv ? line.slice(1).find((w) => !w.startsWith("-")) : line[0];
  if (!name) return { ok: true, path: found };
  const interpreter = viaEnv ? locate(name, launch.cwd, path) : name;
  if (!interpreter) return { ok: false, why: `${found} runs through ${name} (its #! line), which is not found on the PATH the server gets` };
  const bad = runnable(interpreter);
  if (bad) return { ok: false, why: `${found} runs through ${interpreter} (its #! line): ${bad}` };
  return { ok: true, path: found, interpreter };
}
