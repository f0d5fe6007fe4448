// The memory room on real files: edits, the cap on every write, hand-edited files over the cap, files that are
// not UTF-8 or not regular, secrets refused, private modes, and the workspace key.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  applyMemoryEdit,
  MemoryEditError,
  MemoryFullError,
  memoryFile,
  type MemoryPlace,
  memorySection,
  readMemory,
  readSnapshot,
  refuseSecrets,
  updateMemory,
  workspaceId,
} from "../../src/memory/index";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function place(caps: { user?: number; project?: number } = {}): MemoryPlace {
  const root = mkdtempSync(join(tmpdir(), "scv-memory-"));
  roots.push(root);
  mkdirSync(join(root, "ws"));
  return { home: join(root, "home"), workspace: join(root, "ws"), config: { enabled: true, user_max_bytes: caps.user ?? 4096, project_max_bytes: caps.project ?? 8192 } };
}

describe("edits", () => {
  test("add appends a list item; replace and remove work on a passage quoted once", () => {
    let t = applyMemoryEdit("", { action: "add", text: "prefers short replies" }, "USER.md");
    t = applyMemoryEdit(t, { action: "add", text: "## Time\n- Europe/Berlin" }, "USER.md");
    expect(t).toBe("- prefers short replies\n## Time\n- Europe/Berlin\n");
    t = applyMemoryEdit(t, { action: "replace", old_text: "short replies", text: "replies in German" }, "USER.md");
    expect(t).toContain("- prefers replies in German\n");
    t = applyMemoryEdit(t, { action: "remove", old_text: "prefers replies in German" }, "USER.md");
    expect(t).toBe("## Time\n- Europe/Berlin\n"); // the emptied list item went with it
    expect(applyMemoryEdit(t, { action: "remove", old_text: "## Time\n- Europe/Berlin\n" }, "USER.md")).toBe("");
  });

  test("a quote that is missing, repeated or empty is refused with what to do", () => {
    const t = "- a cat\n- a cat and a dog\n";
    expect(() => applyMemoryEdit(t, { action: "remove", old_text: "a bird" }, "USER.md")).toThrow(/not found in USER\.md: quote a passage exactly/);
    expect(() => applyMemoryEdit(t, { action: "replace", old_text: "a cat", text: "x" }, "USER.md")).toThrow(/more than once.*quote more/);
    expect(() => applyMemoryEdit(t, { action: "remove", old_text: "" }, "USER.md")).toThrow(MemoryEditError);
    expect(() => applyMemoryEdit(t, { action: "add", text: "a cat and a dog" }, "USER.md")).toThrow(/already holds/);
  });

  test("text that looks like a key or holds a configured secret is refused, saying why", () => {
    expect(() => refuseSecrets("my key is sk-proj-abcdefghijklmnop1234")).toThrow(/an API key or access token.*never stores keys/);
    expect(() => refuseSecrets("use GITHUB_TOKEN=ghx_not_a_known_prefix_value")).toThrow(/assignment/);
    expect(() => refuseSecrets("the code is plain-long-value-42", ["plain-long-value-42"])).toThrow(/configured secret/);
    expect(() => refuseSecrets("keeps tokens in 1Password; the key is in $OPENAI_API_KEY")).not.toThrow();
  });

  test("a configured secret is found in every encoding the scrubber knows, and spread out; ordinary text is not", () => {
    const key = "plain-long-value-42-Zq81bQ";
    const b64 = (lead: string) => Buffer.from(lead + key + "!").toString("base64");
    const forms = [
      Buffer.from(key).toString("base64"), Buffer.from(key).toString("base64url"), b64("x"), b64("xy"), // inside a longer encoding, at each offset
      Buffer.from(key).toString("hex"), Buffer.from(key).toString("hex").toUpperCase(), [...key].reverse().join(""),
      [...key].join(" "), [...key].join("\u200b"), [...key].join("\u200d"), [...key].join("-"), encodeURIComponent(key),
    ];
    const missed = forms.filter((f) => {
      try {
        refuseSecrets(`note: ${f} end`, [key]);
        return true;
      } catch (e) {
        return !/configured secret/.test((e as Error).message);
      }
    });
    expect(missed).toEqual([]);
    expect(() => refuseSecrets("plain long value notes about base64 and hex", [key])).not.toThrow();
  });
});

describe("files", () => {
  test("writes are private and atomic, project notes are keyed by the workspace's real path", () => {
    const p = place();
    updateMemory(p, "user", (t) => applyMemoryEdit(t, { action: "add", text: "likes tea" }, "USER.md"));
    updateMemory(p, "project", (t) => applyMemoryEdit(t, { action: "add", text: "main repo: scv" }, "notes"));
    const user = memoryFile(p, "user");
    const project = memoryFile(p, "project");
    expect(statSync(user).mode & 0o777).toBe(0o600);
    expect(statSync(join(p.home, "memory")).mode & 0o777).toBe(0o700);
    expect(statSync(join(p.home, "memory", "projects")).mode & 0o777).toBe(0o700);
    expect(project).toBe(join(p.home, "memory", "projects", `${workspaceId(p.workspace)}.md`));
    expect(workspaceId(p.workspace)).toMatch(/^ws-[0-9a-f]{12}$/);
    expect(workspaceId("/a/ws")).not.toBe(workspaceId("/b/ws"));
    expect(readMemory(p, "user")).toMatchObject({ text: "- likes tea\n", size: 12 });
    expect(readMemory(p, "project").text).toBe("- main repo: scv\n");
  });

  test("the cap is enforced on every write and the refusal says how much room is left", () => {
    const p = place({ user: 300 });
    updateMemory(p, "user", () => `${"- note\n".repeat(40)}`); // 280 bytes
    let err: unknown;
    try {
      updateMemory(p, "user", (t) => applyMemoryEdit(t, { action: "add", text: "one more note that does not fit" }, "USER.md"));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MemoryFullError);
    expect((err as Error).message).toContain("over its cap of 300 bytes (memory.user_max_bytes); it holds 280 bytes, so 20 bytes are left");
    expect((err as Error).message).toContain("Consolidate");
    expect(readMemory(p, "user").size).toBe(280); // nothing written
  });

  test("a file edited by hand past its cap is used up to the cap at a line end, with a notice; smaller writes still go", () => {
    const p = place({ user: 256 });
    mkdirSync(join(p.home, "memory"), { recursive: true });
    const lines = Array.from({ length: 30 }, (_, i) => `- note number ${String(i).padStart(2, "0")}\n`); // 17 bytes each
    writeFileSync(memoryFile(p, "user"), lines.join("")); // 510 bytes
    const s = readMemory(p, "user");
    expect(s.text).toBe(lines.slice(0, 15).join("")); // 255 bytes: cut at the last line end within 256
    expect(s.size).toBe(510);
    expect(s.notice).toContain(`${memoryFile(p, "user")} is 510 bytes, over its cap of 256`);
    const section = memorySection(readSnapshot(p), p.workspace, true)!;
    expect(section).toContain("over its cap of 256");
    // growing it is refused; shrinking it is allowed even while it stays over
    expect(() => updateMemory(p, "user", (t) => `${t}- more\n`)).toThrow(MemoryFullError);
    updateMemory(p, "user", (t) => applyMemoryEdit(t, { action: "remove", old_text: "- note number 29\n" }, "USER.md"));
    expect(readMemory(p, "user").size).toBe(493);
  });

  test("a file that is not UTF-8, a FIFO or a link is reported with its path and left out", () => {
    const p = place();
    mkdirSync(join(p.home, "memory", "projects"), { recursive: true });
    writeFileSync(memoryFile(p, "user"), Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0x0a]));
    expect(readMemory(p, "user")).toMatchObject({ text: "", notice: expect.stringContaining(`${memoryFile(p, "user")} is not UTF-8 text`) });
    Bun.spawnSync(["mkfifo", memoryFile(p, "project")]);
    const fifo = readMemory(p, "project"); // returns at once: the reader never blocks on a FIFO
    expect(fifo.notice).toContain("is a FIFO (named pipe), not a regular file");
    rmSync(memoryFile(p, "user"));
    writeFileSync(join(p.workspace, "elsewhere.md"), "- secret plans\n");
    symlinkSync(join(p.workspace, "elsewhere.md"), memoryFile(p, "user"));
    expect(readMemory(p, "user").notice).toContain("is a symbolic link");
    expect(() => updateMemory(p, "user", (t) => `${t}- x\n`)).toThrow(/symbolic link/);
  });
});
