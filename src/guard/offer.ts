// The rule a person is offered for a command the guard asked about: its program and the subcommand-like words
// after it. Also the limit a rule file is judged by when it is loaded: a rule SCV would never have offered (a
// bare interpreter, a wrapper, more words than an offer holds) is refused however it got into the file.

/** Programs that change directory or run another command: their arguments are a command nobody classified. */
export const WRAPPERS = new Set(["cd", "pushd", "popd", "env", "sudo", "doas", "su", "xargs", "nice", "nohup", "timeout", "time", "command", "builtin", "exec", "eval", "source", ".", "bash", "sh", "zsh", "dash", "ksh", "fish", "alias", "unalias", "set", "export", "unset", "trap", "watch", "setsid", "stdbuf", "parallel"]);
export const NETWORK = new Set(["curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "ping", "dig", "nslookup", "host", "http", "xh", "aria2c", "gh", "aws", "gcloud", "az", "kubectl", "docker", "podman"]);
export const REPO_CODE = new Set(["npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx", "deno", "node", "python", "python3", "pip", "pip3", "pytest", "uv", "uvx", "poetry", "tox", "nox", "cargo", "rustc", "go", "make", "cmake", "ninja", "gradle", "gradlew", "mvn", "ant", "rake", "bundle", "ruby", "perl", "php", "composer", "dotnet", "swift", "mix", "sbt", "just", "task", "tsc", "jest", "vitest", "mocha", "bazel", "meson"]);
/** Rules offered as one word only for programs whose first word says little about what runs. */
const NO_SHORT_RULE = new Set([...WRAPPERS, ...REPO_CODE, ...NETWORK, "python2", "awk", "gawk", "perl", "find", "sed", "git", "rm", "mv", "cp", "dd", "chmod", "chown", "tee"]);
/**
 * The prefix offered as a rule: the program and the subcommand-like words after it (`npm test`, `cargo build`),
 * at most three. A bare interpreter or wrapper is not offered: "always allow `python`" would allow anything.
 */
export function suggestedPrefix(values: readonly string[]): string[] | undefined {
  const prefix = [values[0]!];
  for (const v of values.slice(1, 3)) {
    if (!/^[a-z][a-z0-9:_-]*$/.test(v)) break;
    prefix.push(v);
  }
  if (prefix.length === 1 && NO_SHORT_RULE.has(baseName(prefix[0]!))) return undefined;
  return prefix;
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

