// Claude Code habits through the compiled binary: `scv -p "…"` prints the reply, `scv exec "/name args"` runs
// the person's command file with its arguments and allowed-tools. (issue 56)
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, runBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";

setDefaultTimeout(30_000);

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

function lastUserText(fake: FakeModel): string {
  const body = fake.requests.at(-1)!.body;
  const user = ((body.input ?? body.messages) as any[]).filter((m) => m.role === "user").at(-1);
  return typeof user.content === "string" ? user.content : user.content.map((c: any) => c.text ?? "").join("");
}

describe("Claude Code habits", () => {
  test('scv -p "PROMPT" runs one turn and prints the reply; -p NAME still picks a profile; a mistyped one is refused', async () => {
    fake = await startFakeModel();
    const h = fakeHome(fake.url);
    fake.queue(text("hello from print mode"));
    const r = await runBinary(["-p", "say hello"], h.env, h.workspace);
    expect(r.stdout).toBe("hello from print mode\n");
    expect(r.code).toBe(0);
    expect(lastUserText(fake)).toContain("say hello");
    const typo = await runBinary(["-p", "fakee"], h.env, h.workspace);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("-p fakee: no provider profile of that name (profiles: fake)");
    expect(fake.requests.length).toBe(1);
  });

  test('scv exec "/name args" expands the command file; its allowed-tools run unasked, other calls do not', async () => {
    fake = await startFakeModel();
    const h = fakeHome(fake.url, "[sandbox]\nauto_run = false\n");
    mkdirSync(join(h.home, "commands"), { recursive: true });
    writeFileSync(join(h.home, "commands", "mk.md"), "---\ndescription: make a file\nallowed-tools: Bash(touch:*)\n---\nMake the file $1 please ($ARGUMENTS)\n");
    writeFileSync(join(h.home, "commands", "plain.md"), "Review the code\n");
    writeFileSync(join(h.home, "commands", "bad-tool.md"), "---\nallowed-tools: Teleport\n---\nbody\n");
    fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch one.txt" } }]), toolCalls([{ name: "bash", arguments: { command: "rm -f one.txt" } }]), text("made it"));
    const r = await runBinary(["exec", "/mk one.txt now"], h.env, h.workspace);
    expect(JSON.stringify(fake.requests[0]!.body)).toContain("Make the file one.txt please (one.txt now)");
    expect(r.stderr).toContain("bad-tool.md: allowed-tools: unknown tool \"Teleport\"");
    expect(existsSync(join(h.workspace, "one.txt"))).toBe(true); // rm was not approved: nobody could be asked
    expect(r.stderr).toContain("not asked, so denied");
    expect(r.stdout).toContain("made it");
    fake.queue(text("reviewed"));
    await runBinary(["exec", "/plain src/a.ts"], h.env, h.workspace);
    expect(lastUserText(fake)).toBe("Review the code\n\nARGUMENTS: src/a.ts");
    const unknown = await runBinary(["exec", "/nosuch"], h.env, h.workspace);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no command /nosuch (your commands: /mk, /plain)");
  });
});
