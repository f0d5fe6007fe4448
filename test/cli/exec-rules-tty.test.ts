// Keeping an approval rule from `scv exec`'s card in a real terminal (tmux), then seeing and removing it with
// `scv rules list|rm`.
import { afterAll, afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { closeAllTerminals, openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);

// A model endpoint per test, so a late request from one test's run can never take another test's reply.
const fake = fakeModelForEachTest();
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});
afterAll(closeAllTerminals);

const bash = (command: string) => toolCalls([{ name: "bash", arguments: { command } }]);

test.skipIf(!needs("tmux"))("p keeps \"always allow commands starting with …\" for this project; the next such command runs unasked", async () => {
  const h = fakeHome(fake.url, "[sandbox]\nauto_run = false\n"); // sandboxed commands would run unasked
  fake.queue(bash("touch first"), bash("touch first second"), text("made both"));
  term = openTerminal([requireBinary(), "exec", "make files"], { env: h.env, cwd: h.workspace });
  await term.waitFor("[y/N/a]");
  expect(term.screen()).toContain("guard: asks because `touch` is not a known read-only program");
  expect(term.screen()).toContain("p: always allow commands starting with `touch first` in this project");
  term.type("p");
  term.keys("Enter");
  expect(await term.exitCode()).toBe(0);
  const screen = term.screen();
  expect(screen).toContain("kept the rule: always allow commands starting with `touch first` in this project");
  expect(screen.match(/\[y\/N\/a\]/g)).toHaveLength(1); // the second command was not asked about
  expect(existsSync(join(h.workspace, "first"))).toBe(true);
  expect(existsSync(join(h.workspace, "second"))).toBe(true);

  const listed = await runBinary(["rules", "list", "--json"], h.env, h.workspace);
  const rules = JSON.parse(listed.stdout).rules;
  expect(rules).toHaveLength(1);
  expect(rules[0]).toMatchObject({ prefix: ["touch", "first"], workspace: h.workspace });
  const listedText = await runBinary(["rules", "list"], h.env, h.workspace);
  expect(listedText.stdout).toContain(`${rules[0].id}  touch first  (in ${h.workspace}`);
  expect((await runBinary(["rules", "rm", rules[0].id], h.env, h.workspace)).stdout).toBe(`removed rule ${rules[0].id}\n`);
  const gone = await runBinary(["rules", "rm", rules[0].id], h.env, h.workspace);
  expect(gone.code).toBe(1);
  expect(gone.stderr).toContain("no rule with ID");
});
