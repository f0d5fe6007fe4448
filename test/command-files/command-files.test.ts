// Command files: Claude Code's argument rules, its allowed-tools patterns, and bad files skipped with a notice
// naming the file and the field. (issue 56)
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allowsTool, argumentWords, expandCommand, isTrustedProject, loadCommandFiles, trustProject } from "../../src/command-files/index";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function place() {
  const root = mkdtempSync(join(tmpdir(), "scv-cmdfiles-"));
  roots.push(root);
  const home = join(root, "home");
  const ws = join(root, "ws");
  mkdirSync(join(home, "commands"), { recursive: true });
  mkdirSync(join(ws, ".scv", "commands"), { recursive: true });
  return { home, ws };
}

describe("command files", () => {
  test("$ARGUMENTS, $1…, quoted words, and ARGUMENTS: appended when the body uses neither", () => {
    expect(argumentWords(`a "b c" 'd'`)).toEqual(["a", "b c", "d"]);
    expect(expandCommand("fix $1 in $2; all: $ARGUMENTS", `#12 "the parser"`)).toBe(`fix #12 in the parser; all: #12 "the parser"`);
    expect(expandCommand("missing $3.", "a")).toBe("missing .");
    expect(expandCommand("Review.\n", "src/x.ts")).toBe("Review.\n\nARGUMENTS: src/x.ts");
    expect(expandCommand("Review.\n", "")).toBe("Review.\n");
  });

  test("allowed-tools: plain names, Bash(prefix:*), an exact Bash(command)", () => {
    expect(allowsTool(["Read", "Bash(git add:*)"], "read")).toBe(true);
    expect(allowsTool(["Bash(git add:*)"], "bash", "git add src")).toBe(true);
    expect(allowsTool(["Bash(git add:*)"], "bash", "git addx")).toBe(false);
    expect(allowsTool(["Bash(git add:*)"], "bash", "git commit")).toBe(false);
    expect(allowsTool(["Bash(npm test)"], "bash", "npm test")).toBe(true);
    expect(allowsTool(["Bash(npm test)"], "bash", "npm test; rm -rf x")).toBe(false);
    expect(allowsTool(["Edit"], "write")).toBe(false);
  });

  test("bad files are skipped with the file and the field; built-in names and duplicates too", () => {
    const { home, ws } = place();
    writeFileSync(join(home, "commands", "ok.md"), "---\ndescription: fine\nallowed-tools: [Read, Grep]\n---\nDo it\n");
    writeFileSync(join(home, "commands", "open.md"), "---\ndescription: x\nDo it\n");
    writeFileSync(join(home, "commands", "list.md"), "---\nallowed-tools: 3\n---\nx\n");
    writeFileSync(join(home, "commands", "empty.md"), "---\ndescription: nothing\n---\n\n");
    writeFileSync(join(home, "commands", "help.md"), "x\n");
    writeFileSync(join(home, "commands", "Bad Name.md"), "x\n");
    const { items, notices } = loadCommandFiles({ scvHome: home, workspace: ws, builtins: ["help"] });
    expect(items.map((c) => c.name)).toEqual(["ok"]);
    expect(items[0]!.allowedTools).toEqual(["Read", "Grep"]);
    const said = notices.join("\n");
    expect(said).toContain("open.md: front matter: not closed");
    expect(said).toContain("list.md: allowed-tools: must be a list");
    expect(said).toContain("empty.md: body: the file has no prompt");
    expect(said).toContain("help.md: name: /help is one of SCV's own commands");
    expect(said).toContain("Bad Name.md: name:");
  });

  test("a project's files are read only once it is trusted; a user file keeps its name", () => {
    const { home, ws } = place();
    writeFileSync(join(home, "commands", "review.md"), "mine\n");
    writeFileSync(join(ws, ".scv", "commands", "review.md"), "theirs\n");
    writeFileSync(join(ws, ".scv", "commands", "deploy.md"), "deploy $1\n");
    let r = loadCommandFiles({ scvHome: home, workspace: ws, builtins: [] });
    expect(r.items.map((c) => c.name)).toEqual(["review"]);
    expect(r.notices[0]).toContain("2 project command files not loaded: this project is not trusted yet");
    expect(isTrustedProject(home, ws)).toBe(false);
    expect(trustProject(home, ws)).toBe(true);
    expect(trustProject(home, ws)).toBe(false);
    r = loadCommandFiles({ scvHome: home, workspace: ws, builtins: [] });
    expect(r.items.map((c) => `${c.name}:${c.kind}`)).toEqual(["review:user", "deploy:project"]);
    expect(r.notices.join("\n")).toContain("review.md: name: /review is already defined by");
  });
});
