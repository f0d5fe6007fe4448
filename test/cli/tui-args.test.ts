// The interactive session's own words (`scv [tui] [-c] [-r [ID]] ...`), refused before anything opens.
import { afterAll, describe, expect, test } from "bun:test";
import { fakeHome, removeFakeHomes, requireBinary, runBinary } from "../fake/binary";
import { needs } from "../fake/needs";

afterAll(removeFakeHomes);

const USAGE = "usage: scv [tui] [-c|--continue] [-r|--resume [ID]] [-C|--cwd DIR] [-p|--provider NAME] [-m|--model MODEL] [--effort EFFORT] [-y|--yes] [--accept-edits] [PROMPT | -- WORDS…]";

function run(args: string[]) {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  return runBinary(args, env, workspace);
}

test("an unknown option, a word too many or a missing value is a usage error naming it", async () => {
  expect(await run(["tui", "--bogus"])).toEqual({ code: 2, stdout: "", stderr: `scv: unknown option --bogus\n${USAGE}\n` });
  expect(await run(["tui", "extra"])).toEqual({ code: 2, stdout: "", stderr: `scv: unexpected argument "extra"; a first prompt is one quoted argument (scv "fix the bug") or the words after -- (scv -- extra)\n${USAGE}\n` });
  expect(await run(["-c", "--cwd"])).toEqual({ code: 2, stdout: "", stderr: `scv: --cwd needs a value\n${USAGE}\n` });
});

test("without a terminal the session is refused with the way to script it", async () => {
  const r = await run(["--continue"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe("scv: the interactive session needs a terminal on stdin and stdout; for scripts use `scv exec PROMPT`\n");
});

describe.skipIf(!needs("script"))("in a terminal", () => {
  test("--continue and --resume together are refused", () => {
    const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
    const r = Bun.spawnSync(["script", "-qec", `${requireBinary()} --continue --resume s-abc`, "/dev/null"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString()).toContain("scv: give either --continue or --resume, not both");
    expect(r.exitCode).toBe(2);
  });

  test("a bad config file exits 78 naming the file, as scv exec does; -C alone opens the session", () => {
    const { env, workspace, home } = fakeHome("http://127.0.0.1:9/v1", "[tools]\nbogus = 1\n");
    const r = Bun.spawnSync(["script", "-qec", `${requireBinary()} -C ${workspace}`, "/dev/null"], { cwd: "/", env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString()).toContain(`${home}/config.toml`);
    expect(r.exitCode).toBe(78);
  });
});
