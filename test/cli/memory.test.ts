// The owner's memory through the compiled binary and the scripted model: saved in one session, carried by the
// next one's first request; the cap and the secret refusal; hand-edited files over the cap or not UTF-8;
// compaction keeping memory in the instructions (with the save step before it); `scv memory` commands.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { type FakeReply, text, toolCalls } from "../fake/model-server";
import { workspaceId } from "../../src/memory/index";

const fake = fakeModelForFile();

const exec = (args: string[], env: Record<string, string>, cwd: string) => runBinary(["exec", ...args], env, cwd);
const events = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
const userFile = (home: string) => join(home, "memory", "USER.md");
const projectFile = (home: string, workspace: string) => join(home, "memory", "projects", `${workspaceId(workspace)}.md`);

function writeMemory(file: string, text: string | Uint8Array) {
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o600 });
}

describe("sessions", () => {
  test("a preference the model saves in one session is in the next session's first request", async () => {
    const { env, workspace, home } = fakeHome(fake.url);
    const from = fake.requests.length;
    fake.queue(toolCalls([{ name: "memory", arguments: { action: "add", scope: "user", text: "Answer in German." } }]), text("Noted."));
    const first = await exec(["--json", "--yes", "From now on, always answer me in German."], env, workspace);
    expect(first.code).toBe(0);
    const done = events(first.stdout).find((e) => e.method === "tool.completed")!.params;
    expect(done).toMatchObject({ tool: "memory", ok: true });
    expect(done.output).toContain("now 20 of 4096 bytes");
    const firstRequest = fake.requests[from]!.body;
    expect(toolNames(firstRequest)).toContain("memory");
    expect(firstRequest.instructions).toContain("# Memory");
    expect(firstRequest.instructions).toContain("No notes about the user or this project are saved yet.");
    expect(readFileSync(userFile(home), "utf8")).toBe("- Answer in German.\n");
    expect(statSync(userFile(home)).mode & 0o777).toBe(0o600);

    const next = fake.requests.length;
    fake.queue(text("Hallo!"));
    const second = await exec(["hi"], env, workspace);
    expect(second.code).toBe(0);
    const instructions: string = fake.requests[next]!.body.instructions;
    expect(instructions).toContain("## About the user (USER.md): 20 bytes of 4.0 KiB\n- Answer in German.");
  }, 30_000);

  test("a write past the cap fails with the room left and changes nothing; a key is refused and never written", async () => {
    const { env, workspace, home } = fakeHome(fake.url, "[memory]\nuser_max_bytes = 256\n");
    const notes = `${"- an older note that takes room\n".repeat(7)}`; // 224 bytes
    writeMemory(userFile(home), notes);
    const key = "sk-proj-Zx81bQ2mN4vL7pR5tY9wK3aC";
    fake.queue(
      toolCalls([
        { name: "memory", arguments: { action: "add", scope: "user", text: "The user's favourite editor is Helix, configured with many plugins." } },
        { name: "memory", arguments: { action: "add", scope: "project", text: `deploy key: ${key}` } },
      ]),
      text("Memory is full."),
    );
    const r = await exec(["--json", "--yes", "remember my editor and the deploy key"], env, workspace);
    expect(r.code).toBe(0);
    const [full, secret] = events(r.stdout).filter((e) => e.method === "tool.completed").map((e) => e.params);
    expect(full.ok).toBe(false);
    expect(full.output).toContain("over its cap of 256 bytes (memory.user_max_bytes); it holds 224 bytes, so 32 bytes are left");
    expect(secret.ok).toBe(false);
    expect(secret.output).toContain("memory never stores keys");
    expect(readFileSync(userFile(home), "utf8")).toBe(notes);
    expect(existsSync(projectFile(home, workspace))).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(key);
  }, 30_000);

  test("a hand-edited file over its cap is used up to the cap with a notice; one not UTF-8 is named and the session goes on", async () => {
    const { env, workspace, home } = fakeHome(fake.url, "[memory]\nproject_max_bytes = 256\n");
    const lines = Array.from({ length: 20 }, (_, i) => `- project fact ${String(i).padStart(2, "0")}\n`); // 18 bytes each
    writeMemory(projectFile(home, workspace), lines.join(""));
    writeMemory(userFile(home), Buffer.from("- caf\xe9 latin-1\n", "latin1"));
    const from = fake.requests.length;
    fake.queue(text("ok"));
    const r = await exec(["hi"], env, workspace);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`note: memory file ${projectFile(home, workspace)} is 360 bytes, over its cap of 256 (memory.project_max_bytes): sessions use only its first 252 bytes`);
    expect(r.stderr).toContain(`note: memory file ${userFile(home)} is not UTF-8 text`);
    const instructions: string = fake.requests[from]!.body.instructions;
    expect(instructions).toContain(lines.slice(0, 14).join("").trim());
    expect(instructions).not.toContain("project fact 14");
    expect(instructions).toContain("is not UTF-8 text");
  }, 30_000);
});

describe("compaction", () => {
  /** Replies by request kind: the save step saves a note, the summariser summarises, turns answer with padding. */
  function respond(body: any): FakeReply {
    const lastText = JSON.stringify(body.input.at(-1));
    if (body.instructions?.startsWith("You are compacting")) return text("Summary: the user talked about the deploy.");
    if (lastText.includes("[SCV, not the user]")) {
      return toolCalls([{ name: "memory", arguments: { action: "add", scope: "project", text: "Deploys go to berlin-3." } }]);
    }
    return text(`Answered.${" (padding)".repeat(400)}`);
  }

  test("compaction keeps memory in the instructions, renewed with what the save step stored just before it", async () => {
    const { startFakeModel } = await import("../fake/model-server");
    const model = await startFakeModel({ respond });
    try {
      // The first turn stays under compact_at; the second passes it, so the save step and the summary run first.
      const { env, workspace, home } = fakeHome(model.url, "context_window = 6000\ncompact_at = 0.8\n");
      writeMemory(userFile(home), "- Answer in German.\n");
      const pad = " (context)".repeat(500);
      const one = await exec(["--json", "--yes", `We deploy to berlin-3.${pad}`], env, workspace);
      expect(one.code).toBe(0);
      expect(model.requests).toHaveLength(1);
      const two = await exec(["--json", "--yes", "--continue", `How is the deploy going?${pad}`], env, workspace);
      expect(two.code).toBe(0);
      const kinds = model.requests.map((r) =>
        r.body.instructions.startsWith("You are compacting") ? "summary" : JSON.stringify(r.body.input.at(-1)).includes("[SCV, not the user]") ? "save" : "turn",
      );
      expect(kinds).toEqual(["turn", "save", "summary", "turn"]);
      const [, save, summary, turn] = model.requests.map((r) => r.body);
      expect(toolNames(save)).toEqual(["memory"]); // the save step offers memory alone
      expect(summary.instructions).toContain("SCV keeps memory files");
      expect(summary.instructions).toContain("Deploys go to berlin-3."); // the summariser knows what memory holds
      expect(turn.instructions).toContain("- Answer in German.");
      expect(turn.instructions).toContain("- Deploys go to berlin-3.");
      expect(JSON.stringify(turn.input)).toContain("Summary: the user talked about the deploy.");
      expect(JSON.stringify(turn.input)).not.toContain("[SCV, not the user]"); // the step's exchange is not history
      const shown = events(two.stdout).filter((e) => e.method === "tool.completed").map((e) => e.params);
      expect(shown).toMatchObject([{ tool: "memory", ok: true }]);
      expect(events(two.stdout).some((e) => e.method === "session.compacted")).toBe(true);
      expect(readFileSync(projectFile(home, workspace), "utf8")).toBe("- Deploys go to berlin-3.\n");
    } finally {
      await model.close();
    }
  }, 30_000);
});

describe("scv memory", () => {
  test("edit opens $EDITOR on the file (made private), show prints it, clear asks for --yes without a terminal", async () => {
    const { env, workspace, home } = fakeHome(fake.url);
    const editor = join(home, "editor.sh");
    writeFileSync(editor, `#!/bin/sh\nprintf -- '- Time zone: Europe/Berlin\\n' >> "$1"\n`);
    chmodSync(editor, 0o755);
    const edited = await runBinary(["memory", "edit"], { ...env, EDITOR: editor }, workspace);
    expect(edited.code).toBe(0);
    expect(edited.stderr).toContain(`USER.md: 27 of 4096 bytes · ${userFile(home)}`);
    expect(statSync(userFile(home)).mode & 0o777).toBe(0o600);
    const shown = await runBinary(["memory", "show"], env, workspace);
    expect(shown.stdout).toBe("- Time zone: Europe/Berlin\n");
    expect(shown.stderr).toContain("USER.md: 27 bytes of 4.0 KiB");

    const project = await runBinary(["memory", "edit", "--project"], { ...env, VISUAL: editor, EDITOR: "false" }, workspace);
    expect(project.code).toBe(0);
    expect(readFileSync(projectFile(home, workspace), "utf8")).toBe("- Time zone: Europe/Berlin\n");

    const noEditor = await runBinary(["memory", "edit"], env, workspace);
    expect(noEditor.code).toBe(2);
    expect(noEditor.stderr).toContain("set VISUAL or EDITOR");

    const refused = await runBinary(["memory", "clear"], env, workspace);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes");
    expect(existsSync(userFile(home))).toBe(true);
    const cleared = await runBinary(["memory", "clear", "--yes"], env, workspace);
    expect(cleared.code).toBe(0);
    expect(existsSync(userFile(home))).toBe(false);
    expect(existsSync(projectFile(home, workspace))).toBe(true); // --project not given: the notes stay

    const unknown = await runBinary(["memory", "show", "--all"], env, workspace);
    expect(unknown.code).toBe(2);
  }, 30_000);
});

describe("a configured secret in any encoding (issue 38)", () => {
  const key = "plainkey-Zq81bQ2mN4vL7pR5tY9w";
  const zw = (s: string) => [...s].join("\u200d");
  const encodings: Record<string, string> = {
    base64: Buffer.from(key).toString("base64"),
    hex: Buffer.from(key).toString("hex"),
    reversed: [...key].reverse().join(""),
    spaced: [...key].join(" "),
    "zero-width joined": zw(key),
  };

  test("the memory tool refuses the provider key in base64, hex, reversed, spaced or zero-width-joined form", async () => {
    const { env, workspace, home } = fakeHome(fake.url, `api_key = "${key}"\n`);
    const calls = Object.entries(encodings).map(([how, value]) => ({ name: "memory", arguments: { action: "add", scope: "user", text: `note (${how}): ${value}` } }));
    fake.queue(toolCalls(calls), text("not saved"));
    const r = await exec(["--json", "--yes", "remember this"], env, workspace);
    const done = events(r.stdout).filter((e) => e.method === "tool.completed").map((e) => e.params);
    expect(done).toHaveLength(5);
    for (const d of done) {
      expect(d.ok).toBe(false);
      expect(d.output).toContain("configured secret");
    }
    expect(existsSync(userFile(home))).toBe(false);
  }, 30_000);

  test("a USER.md written by hand holding the key (base64) is not sent: the session goes on without it, with a notice", async () => {
    const { env, workspace, home } = fakeHome(fake.url, `api_key = "${key}"\n`);
    writeMemory(userFile(home), `- Answer in German.\n- ${encodings.base64}\n`);
    const from = fake.requests.length;
    fake.queue(text("Hallo"));
    const r = await exec(["--json", "hi"], env, workspace);
    expect(r.code).toBe(0);
    const body = JSON.stringify(fake.requests[from]!.body);
    expect(body).not.toContain(encodings.base64);
    expect(body).not.toContain("Answer in German");
    expect(r.stdout + r.stderr).toContain("which memory never sends to the model");
  }, 30_000);
});
