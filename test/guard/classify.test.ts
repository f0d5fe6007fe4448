// The command guard over its table of commands (test/guard/commands.ts): every decision as the table says, and
// the figure that matters, the number of commands auto-approved that write, delete, run repository code, reach
// the network or read a credential, is 0.
import { expect, test } from "bun:test";
import { classifyCommand, type GuardContext } from "../../src/guard/index";
import { COMMANDS, HOME, SCV_HOME, WORKSPACE } from "./commands";

const ctx: GuardContext = { workspace: WORKSPACE, home: HOME, scvHome: SCV_HOME, gitConfig: () => undefined };

test("the table holds at least 650 commands, and each kind is well represented", () => {
  expect(COMMANDS.length).toBeGreaterThanOrEqual(650);
  for (const d of ["allow", "prompt", "block"] as const) expect(COMMANDS.filter((r) => r.expect === d).length).toBeGreaterThan(40);
  expect(new Set(COMMANDS.map((r) => r.command)).size).toBe(COMMANDS.length);
});

test("every command in the table gets the decision the table gives it", () => {
  const wrong = COMMANDS.map((r) => ({ ...r, got: classifyCommand(r.command, ctx) })).filter((r) => r.got.decision !== r.expect);
  expect(wrong.map((r) => `${JSON.stringify(r.command)}: expected ${r.expect}, got ${r.got.decision} (${r.got.reason})`)).toEqual([]);
});

test("0 commands that write, delete, run repository code, reach the network or read a credential are auto-approved", () => {
  const dangerous = COMMANDS.filter((r) => r.does !== "read");
  const allowed = dangerous.filter((r) => classifyCommand(r.command, ctx).decision === "allow");
  console.log(`guard table: ${COMMANDS.length} commands, ${dangerous.length} that write/delete/execute/reach the network/read a credential, ${allowed.length} of them auto-approved`);
  expect(dangerous.length).toBeGreaterThan(400);
  expect(COMMANDS.filter((r) => r.does === "secret").length).toBeGreaterThan(20);
  expect(allowed.map((r) => r.command)).toEqual([]);
});

test("every reason is one line a person can act on; a block says the user can run it themselves", () => {
  for (const r of COMMANDS) {
    const v = classifyCommand(r.command, ctx);
    expect(v.reason.length).toBeGreaterThan(2);
    if (v.decision === "block") expect(v.reason).toContain("run it yourself");
  }
  expect(classifyCommand("echo 'x", ctx).reason).toStartWith("could not read this command: ");
});

test("a user extends and trims the read-only list", () => {
  const { programList } = require("../../src/guard/programs") as typeof import("../../src/guard/programs");
  const mine = { ...ctx, programs: programList(["jq"], ["cat"]) };
  expect(classifyCommand("jq . a.json", ctx).decision).toBe("prompt");
  expect(classifyCommand("jq . a.json", mine).decision).toBe("allow");
  expect(classifyCommand("cat a.txt", mine).decision).toBe("prompt");
  // An added program still gets the literal, redirection and credential-path checks.
  expect(classifyCommand("jq . .env", mine).decision).toBe("prompt");
  expect(classifyCommand("jq . a.json > out", mine).decision).toBe("prompt");
  expect(classifyCommand("jq $X a.json", mine).decision).toBe("prompt");
});

test("a rule is offered only for a literal command, and never for a bare interpreter", () => {
  expect(classifyCommand("npm test", ctx).rulePrefix).toEqual(["npm", "test"]);
  expect(classifyCommand("cargo test --release", ctx).rulePrefix).toEqual(["cargo", "test"]);
  expect(classifyCommand("npm test $(id)", ctx).rulePrefix).toBeUndefined();
  expect(classifyCommand("npm test > out", ctx).rulePrefix).toBeUndefined();
  expect(classifyCommand("python script.py", ctx).rulePrefix).toBeUndefined();
  expect(classifyCommand("cat .env", ctx).rulePrefix).toBeUndefined();
  expect(classifyCommand("npm test && npm run lint", ctx).rulePrefix).toBeUndefined();
});

test("sed scripts are read as GNU sed reads them", () => {
  const { sedScriptProblem } = require("../../src/guard/sed") as typeof import("../../src/guard/sed");
  for (const safe of ["p", "1,5d", "s/[/]/x/g", "s/a\\/b/c/", "/x/I,+3{s/a/b/;p}", "0~3p", "$!N", "y/ab/cd/", "a text\nq", "b end; :end", "s/a/b/ g ; p", "a x\\\ne id"]) expect([safe, sedScriptProblem(safe)]).toEqual([safe, undefined]);
  for (const bad of ["sea\\\\etouch x", "s|a\\\\|b|w f|", "s/a/b/ e", "s/a/b/;e id", "1r /etc/passwd", "W out", "s/[/]/x/w f", "{p", "s/a/b", "b x y;e id", "a x\ne id"]) expect([bad, sedScriptProblem(bad)]).not.toEqual([bad, undefined]);
});

test("options are parsed as getopt_long parses them: clusters, attached values, abbreviations", () => {
  const { optionTable, parseOptions } = require("../../src/guard/options") as typeof import("../../src/guard/options");
  const table = optionTable("uo:k:d::", ["output=", "output-format=", "unique", "debug"]);
  expect(parseOptions(["-uo/x", "f"], table)).toEqual({ options: [{ name: "-u" }, { name: "-o", value: "/x" }], operands: ["f"] });
  expect(parseOptions(["--outp=a"], table)).toEqual({ unknown: expect.stringContaining("ambiguous") });
  expect(parseOptions(["--output=a"], table)).toEqual({ options: [{ name: "--output", value: "a" }], operands: [] });
  expect(parseOptions(["--uniq", "--", "-o"], table)).toEqual({ options: [{ name: "--unique" }], operands: ["-o"] });
  expect(parseOptions(["-z"], table)).toEqual({ unknown: expect.stringContaining("-z") });
  expect(parseOptions(["-d", "x"], table)).toEqual({ options: [{ name: "-d" }], operands: ["x"] });
});
