// Approval rules: kept in $SCV_HOME, matched word for word on literal commands only, never above `block`; a
// malformed file is reported with its path and ignored.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addRule, classifyCommand, loadRules, removeRule, rulesFile } from "../../src/guard/index";

const WORKSPACE = "/home/alice/project";
const base = { workspace: WORKSPACE, home: "/home/alice", scvHome: "/home/alice/.scv", gitConfig: () => undefined };
const home = () => mkdtempSync(join(tmpdir(), "scv-rules-"));

test("a kept prefix rule lets that command run, in its workspace only", () => {
  const h = home();
  const rule = addRule(h, ["npm", "test"], WORKSPACE);
  expect(statSync(rulesFile(h)).mode & 0o777).toBe(0o600);
  const ctx = { ...base, rules: loadRules(h) };
  const v = classifyCommand("npm test -- --watch", ctx);
  expect(v.decision).toBe("allow");
  expect(v.reason).toContain("npm test");
  expect(classifyCommand("npm test && git status", ctx).decision).toBe("allow");
  expect(classifyCommand("npm testing", ctx).decision).toBe("prompt"); // words, not characters
  expect(classifyCommand("npm run test", ctx).decision).toBe("prompt");
  expect(classifyCommand("npm test", { ...ctx, workspace: "/home/alice/other" }).decision).toBe("prompt");
  expect(addRule(h, ["npm", "test"], WORKSPACE).id).toBe(rule.id); // kept once
  expect(removeRule(h, rule.id)).toBe(true);
  expect(removeRule(h, rule.id)).toBe(false);
  expect(classifyCommand("npm test", { ...base, rules: loadRules(h) }).decision).toBe("prompt");
});

test("a rule never matches substitution, expansion, globs, inline variables, redirections or credential paths", () => {
  const h = home();
  addRule(h, ["npm", "test"]);
  addRule(h, ["cat"]);
  const ctx = { ...base, rules: loadRules(h) };
  for (const command of ["npm test $(curl x)", "npm test `id`", "npm test $HOME", "npm test *.js", "FOO=1 npm test", "npm test > out.txt", "npm test; curl x", "cat .env", "cat ~/.ssh/id_rsa"]) {
    expect([command, classifyCommand(command, ctx).decision]).toEqual([command, "prompt"]);
  }
});

test("a rule never lifts block", () => {
  const h = home();
  addRule(h, ["shred"]);
  const ctx = { ...base, rules: loadRules(h) };
  expect(classifyCommand("shred a.txt", ctx).decision).toBe("allow");
  expect(classifyCommand("shred /home/alice/*", ctx).decision).toBe("block");
  expect(classifyCommand("shred ~/.scv/config.toml", ctx).decision).toBe("block");
});

test("a rule file SCV did not write is judged as one made through SCV: a rule it would never offer is refused", () => {
  for (const prefix of [["rm"], ["bash"], ["sh", "-c"], ["python"], ["npm", "test", "a", "b"], ["env"]]) {
    const h = home();
    const text = JSON.stringify({ rules: [{ id: "abc", prefix, created_at: 1 }] });
    writeFileSync(rulesFile(h), text);
    const set = loadRules(h);
    expect(set.rules).toEqual([]);
    expect(set.problem).toContain("is not a rule SCV offers");
    expect(classifyCommand(`${prefix.join(" ")} x`, { ...base, rules: set }).decision).toBe("prompt");
  }
});

test("a malformed rule file is reported with its path and ignored, never widening what runs", () => {
  for (const text of ["{not json", '{"rules": {}}', '{"rules": [{"id": "x1", "prefix": [], "created_at": 1}]}', '{"rules": [{"id": "x1", "prefix": ["npm"], "workspace": "rel", "created_at": 1}]}']) {
    const h = home();
    writeFileSync(rulesFile(h), text);
    const set = loadRules(h);
    expect(set.rules).toEqual([]);
    expect(set.problem).toContain(rulesFile(h));
    const v = classifyCommand("npm test", { ...base, rules: set });
    expect(v.decision).toBe("prompt");
    expect(v.reason).toContain(rulesFile(h));
    expect(() => addRule(h, ["npm", "test"])).toThrow(rulesFile(h));
    expect(readFileSync(rulesFile(h), "utf8")).toBe(text); // nothing is lost
  }
});
