// Agent files of SCV's own loop through the compiled binary: `~/.scv/agents/reviewer.md` is offered by the
// `agent` tool beside the coding agents, runs as a nested SCV session with its prompt, its tool allow list (the
// nested model is offered nothing else) and its step limit, and is in the ledger under its own name. (issue 56)
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, runBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";

setDefaultTimeout(60_000);

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name).sort();

test("an agent file runs as a nested session with its prompt and only its tools, under its own name", async () => {
  fake = await startFakeModel();
  const h = fakeHome(fake.url);
  const nestedHome = join(h.home, "agents", "scv");
  mkdirSync(nestedHome, { recursive: true });
  writeFileSync(join(nestedHome, "config.toml"), `[provider]\nactive = "scv"\n[providers.scv]\nbase_url = "${fake.url}"\nmodel = "nested-model"\napi_key = "sk-nested-files-key"\nmax_retries = 0\n`, { mode: 0o600 });
  writeFileSync(join(h.home, "agents", "reviewer.md"), "---\ndescription: reviews a change for bugs\ntools: Read, Grep\nmax_steps: 3\n---\nYou are a strict code reviewer. Report bugs only.\n");
  writeFileSync(join(h.home, "agents", "broken.md"), "---\ntools: Teleport\ndescription: x\n---\nbody\n");
  writeFileSync(join(h.home, "agents", "claude.md"), "---\ndescription: clash\n---\nbody\n");

  const listed = await runBinary(["agents", "list"], h.env, h.workspace);
  expect(listed.stdout).toMatch(/^reviewer\s+agent file\s+reviews a change for bugs/m);
  expect(listed.stdout).toMatch(/^scv\s+/m);
  expect(listed.stderr).toContain('broken.md: tools: unknown tool "Teleport"; skipped');
  expect(listed.stderr).toContain("claude.md: name: claude is one of SCV's coding agents");

  fake.queue(
    toolCalls([{ name: "agent", arguments: { agent: "reviewer", prompt: "Review src/x.ts" } }]),
    text("no bugs found"),
    text("the reviewer found no bugs"),
  );
  const r = await runBinary(["exec", "--yes", "get it reviewed"], h.env, h.workspace);
  expect(r.stdout).toContain("the reviewer found no bugs");
  expect(r.code).toBe(0);
  const parentTools = JSON.stringify(fake.requests[0]!.body.tools);
  expect(parentTools).toContain("reviewer");
  const nested = fake.requests.find((q) => q.body?.model === "nested-model")!;
  expect(toolNames(nested.body)).toEqual(["grep", "read"]);
  expect(JSON.stringify(nested.body)).toContain("You are a strict code reviewer. Report bugs only.");
  const usage = await runBinary(["usage", "--by", "agent", "--json"], h.env, h.workspace);
  expect(JSON.parse(usage.stdout).rows.map((x: any) => x.key)).toContain("reviewer");
});

test("sandbox: read-only keeps an agent file's commands from writing; the same file without it writes", async () => {
  fake = await startFakeModel();
  const h = fakeHome(fake.url);
  const nestedHome = join(h.home, "agents", "scv");
  mkdirSync(nestedHome, { recursive: true });
  writeFileSync(join(nestedHome, "config.toml"), `[provider]\nactive = "scv"\n[providers.scv]\nbase_url = "${fake.url}"\nmodel = "nested-model"\napi_key = "sk-nested-files-key"\nmax_retries = 0\n`, { mode: 0o600 });
  writeFileSync(join(h.home, "agents", "looker.md"), "---\ndescription: looks only\ntools: Bash\nsandbox: read-only\n---\nLook, do not touch.\n");
  writeFileSync(join(h.home, "agents", "maker.md"), "---\ndescription: makes files\ntools: Bash\n---\nMake what is asked.\n");
  fake.queue(
    toolCalls([{ name: "agent", arguments: { agent: "looker", prompt: "touch it" } }]),
    toolCalls([{ name: "bash", arguments: { command: "touch by-looker" } }]),
    text("tried"),
    toolCalls([{ name: "agent", arguments: { agent: "maker", prompt: "touch it" } }]),
    toolCalls([{ name: "bash", arguments: { command: "touch by-maker" } }]),
    text("made"),
    text("both ran"),
  );
  const r = await runBinary(["exec", "--yes", "let both try"], h.env, h.workspace);
  expect(r.stdout).toContain("both ran");
  expect(existsSync(join(h.workspace, "by-looker"))).toBe(false);
  expect(existsSync(join(h.workspace, "by-maker"))).toBe(true);
});
