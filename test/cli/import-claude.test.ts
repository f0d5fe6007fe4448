// `scv import claude` through the compiled binary: a real `.claude` folder (two agents, three commands, hooks,
// an MCP server, a skill and CLAUDE.md) imported into a throwaway home, each piece then working in a session,
// a second import writing nothing twice, --dry-run writing nothing. (issue 56)
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, runBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { EVERYTHING, JS_RUNTIME } from "../fake/mcp-servers";

setDefaultTimeout(60_000);

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

/** A Claude Code setup in HOME as Claude Code writes it. */
function claudeSetup(home: string, workspace: string) {
  const c = join(home, ".claude");
  for (const d of ["agents", "commands", "skills/release-notes"]) mkdirSync(join(c, d), { recursive: true });
  writeFileSync(join(c, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: reviews diffs\ntools: Read, Grep\nmodel: sonnet\n---\nYou review code.\n");
  writeFileSync(join(c, "agents", "tester.md"), "---\nname: tester\ndescription: writes tests\n---\nYou write tests.\n");
  writeFileSync(join(c, "commands", "fix-issue.md"), "---\ndescription: fix a numbered issue\nargument-hint: NUMBER\n---\nFix issue #$1 and say which files changed.\n");
  writeFileSync(join(c, "commands", "explain.md"), "Explain $ARGUMENTS in two sentences.\n");
  writeFileSync(join(c, "commands", "commit.md"), "---\nallowed-tools: Bash(git add:*), Bash(git commit:*)\ndescription: commit the work\n---\nCommit what changed.\n");
  writeFileSync(join(c, "skills", "release-notes", "SKILL.md"), "---\nname: release-notes\ndescription: write release notes from the git log\n---\nRead git log, group by type.\n");
  const marker = join(workspace, "hook-ran.txt");
  writeFileSync(
    join(c, "settings.json"),
    JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `echo ran >> ${marker}` }] }], SubagentStop: [{ hooks: [{ type: "command", command: "true" }] }] } }),
  );
  writeFileSync(join(c, "CLAUDE.md"), "I prefer tabs over spaces and short commit messages.\n");
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: { everything: { type: "stdio", command: JS_RUNTIME, args: [EVERYTHING], env: { API_TOKEN: "sk-not-a-real-key-1234567890abcdef" } }, legacy: { type: "sse", url: "https://example.invalid/sse" } } }));
  return marker;
}

describe("scv import claude", () => {
  test("a whole setup comes over, each piece shown first and working after; nothing twice; what SCV cannot take is said", async () => {
    fake = await startFakeModel();
    const h = fakeHome(fake.url);
    mkdirSync(h.env.HOME!, { recursive: true });
    const marker = claudeSetup(h.env.HOME!, h.workspace);

    const dry = await runBinary(["import", "claude", "--dry-run"], h.env, h.workspace);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain("--dry-run: 9 item(s) would be imported; nothing was written");
    expect(existsSync(join(h.home, "commands"))).toBe(false);

    const r = await runBinary(["import", "claude", "--yes"], h.env, h.workspace);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("imported 9 of 9");
    expect(r.stderr).toContain("agent reviewer →");
    for (const n of ["reviewer", "tester"]) expect(existsSync(join(h.home, "agents", `${n}.md`))).toBe(true);
    expect(r.stderr).toContain("skipped mcp server legacy: the SSE transport");
    expect(r.stderr).toContain("skipped hook SubagentStop: SCV has no such event");
    expect(r.stderr).toContain('env = { "API_TOKEN" = "…" }');
    expect(r.stderr).not.toContain("sk-not-a-real-key");
    for (const n of ["fix-issue", "explain", "commit"]) expect(existsSync(join(h.home, "commands", `${n}.md`))).toBe(true);

    // Again: everything is already there.
    const again = await runBinary(["import", "claude", "--yes"], h.env, h.workspace);
    expect(again.stderr).toContain("nothing new to import");
    expect(again.stderr).toContain("already in SCV: command /explain");
    expect(readFileSync(join(h.home, "config.toml"), "utf8").match(/\[mcp\.servers\.everything\]/g)).toHaveLength(1);

    // The command with an argument, the hook, the memory and the skill in a session.
    fake.queue(text("fixed"));
    const run = await runBinary(["exec", "/fix-issue 42"], h.env, h.workspace);
    expect(run.stdout).toContain("fixed");
    const sent = JSON.stringify(fake.requests.at(-1)!.body);
    expect(sent).toContain("Fix issue #42 and say which files changed.");
    expect(sent).toContain("I prefer tabs over spaces");
    expect(sent).toContain("release-notes");
    expect(readFileSync(marker, "utf8")).toBe("ran\n");
    // The imported agents are offered once the nested SCV has its provider; the reviewer keeps its tools.
    mkdirSync(join(h.home, "agents", "scv"), { recursive: true });
    writeFileSync(join(h.home, "agents", "scv", "config.toml"), `[provider]\nactive = "scv"\n[providers.scv]\nbase_url = "${fake.url}"\nmodel = "nested-model"\napi_key = "sk-nested-import-key"\nmax_retries = 0\n`, { mode: 0o600 });
    fake.queue(toolCalls([{ name: "agent", arguments: { agent: "reviewer", prompt: "review it" } }]), text("looks fine"), text("reviewed"));
    const delegated = await runBinary(["exec", "--yes", "have it reviewed"], h.env, h.workspace);
    expect(delegated.stdout).toContain("reviewed");
    const nested = fake.requests.find((q) => q.body?.model === "nested-model")!;
    expect((nested.body.tools as any[]).map((t) => t.name ?? t.function?.name).sort()).toEqual(["grep", "read"]);
    expect(JSON.stringify(nested.body)).toContain("You review code.");
    // The MCP server connects and lists its tools.
    const mcp = await runBinary(["mcp", "test", "everything", "--yes"], h.env, h.workspace);
    expect(mcp.stdout).toMatch(/everything: connected to .* tools? listed/);
  });

  test("an unreadable source is named and the rest goes on; without a terminal or --yes nothing is written", async () => {
    fake = await startFakeModel();
    const h = fakeHome(fake.url);
    mkdirSync(join(h.env.HOME!, ".claude", "commands"), { recursive: true });
    writeFileSync(join(h.env.HOME!, ".claude.json"), "{ not json");
    writeFileSync(join(h.env.HOME!, ".claude", "commands", "hello.md"), "Say hello to $1\n");
    writeFileSync(join(h.env.HOME!, ".claude", "commands", "broken.md"), "---\ndescription: [\n---\nx\n");
    const r = await runBinary(["import", "claude"], h.env, h.workspace);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/skipped .*\.claude\.json: not valid JSON/);
    expect(r.stderr).toMatch(/skipped command .*broken\.md: front matter: not valid YAML/);
    expect(r.stderr).toContain("command /hello →");
    expect(r.stderr).toContain("nothing was written; pass --yes");
    expect(existsSync(join(h.home, "commands", "hello.md"))).toBe(false);
  });
});

describe("scv import codex", () => {
  test("Codex prompts become commands, its MCP servers tables, ~/.codex/AGENTS.md a USER.md section", async () => {
    fake = await startFakeModel();
    const h = fakeHome(fake.url);
    const codex = join(h.env.HOME!, ".codex");
    mkdirSync(join(codex, "prompts"), { recursive: true });
    writeFileSync(join(codex, "prompts", "draftpr.md"), "---\ndescription: draft a PR description\nargument-hint: BRANCH\n---\nDraft a PR description for $1.\n");
    writeFileSync(join(codex, "config.toml"), `model = "gpt-5"\n[mcp_servers.everything]\ncommand = ${JSON.stringify(JS_RUNTIME)}\nargs = [${JSON.stringify(EVERYTHING)}]\n[mcp_servers.remote]\nurl = "https://example.invalid/mcp"\nbearer_token_env_var = "REMOTE_TOKEN"\n`);
    writeFileSync(join(codex, "AGENTS.md"), "Always run the tests before saying done.\n");
    const r = await runBinary(["import", "codex", "--yes"], h.env, h.workspace);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("imported 3 of 3");
    expect(r.stderr).toContain('skipped mcp server remote: bearer_token_env_var; add it by hand as bearer_token_env = "REMOTE_TOKEN"');
    fake.queue(text("drafted"));
    await runBinary(["exec", "/draftpr feature-x"], h.env, h.workspace);
    const sent = JSON.stringify(fake.requests.at(-1)!.body);
    expect(sent).toContain("Draft a PR description for feature-x.");
    expect(sent).toContain("Always run the tests before saying done.");
    const listed = await runBinary(["mcp", "list"], h.env, h.workspace);
    expect(listed.stdout).toContain("everything");
  });
});
