// The guard's keys: [tools.approval], [tools.guard], tools.bash_env and [[tools.secret_bindings]] are user-only,
// checked with clear errors, and shown without values.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { effectiveEntries } from "../../src/config/show";
import { configErrorOf, configHome, removeConfigHomes } from "./config-homes";

afterEach(removeConfigHomes);

test("the keys load from the user file", () => {
  const { env, ws } = configHome(
    '[tools]\nbash_env = ["EDITOR", "FOO=bar"]\n[tools.approval]\nweb_fetch = "allow"\nbash = "prompt"\n[tools.guard]\nadd_read_only = ["jq"]\nremove_read_only = ["cat"]\n[[tools.secret_bindings]]\nsource = "env:GITHUB_TOKEN"\ntarget = "GH_TOKEN"\nexpires_in_seconds = 600\n',
  );
  const loaded = loadConfig({ cwd: ws, env });
  expect(loaded.config.tools.approval).toEqual({ web_fetch: "allow", bash: "prompt" });
  expect(loaded.config.tools.guard).toEqual({ add_read_only: ["jq"], remove_read_only: ["cat"] });
  expect(loaded.config.tools.secret_bindings).toEqual([{ source: "env:GITHUB_TOKEN", target: "GH_TOKEN", expires_in_seconds: 600 }]);
  const shown = effectiveEntries(loaded).find((e) => e.key === "tools.bash_env");
  expect(shown?.value).toEqual(["EDITOR", "FOO=(set)"]); // a value given there may be a secret
});

test("a project file cannot set them: they change what runs unasked and what a command can read", () => {
  for (const project of ['[tools.approval]\nbash = "allow"\n', '[tools.guard]\nadd_read_only = ["sh"]\n', '[tools]\nbash_env = ["OPENAI_API_KEY"]\n', '[[tools.secret_bindings]]\nsource = "env:X"\n']) {
    const { env, ws, home } = configHome("", project);
    const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain("a project file cannot set tools.");
    expect(msg).toContain(join(home, "config.toml"));
  }
});

test("bad values are refused saying what is accepted", () => {
  const cases: [string, string][] = [
    ['[tools.approval]\nbash = "yes"\n', "must be one of: allow, prompt, deny"],
    ['[tools.guard]\nadd_read_only = ["./x"]\n', "must be a program name"],
    ['[tools]\nbash_env = ["1BAD"]\n', "must be NAME or NAME=value"],
    ['[[tools.secret_bindings]]\nsource = "GITHUB_TOKEN"\n', "must be env:NAME"],
    ['[[tools.secret_bindings]]\nsource = "env:X"\ntarget = "LD_PRELOAD"\n', "target LD_PRELOAD controls what runs"],
    ['[[tools.secret_bindings]]\nsource = "env:PATH"\n', "target PATH controls what runs"],
    ['[[tools.secret_bindings]]\nsource = "env:A"\ntarget = "T"\n[[tools.secret_bindings]]\nsource = "env:B"\ntarget = "T"\n', "two bindings set T"],
  ];
  for (const [user, expected] of cases) {
    const { env, ws } = configHome(user);
    expect(configErrorOf(() => loadConfig({ cwd: ws, env }))).toContain(expected);
  }
});
