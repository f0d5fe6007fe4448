// The owner's memory in chat, through the real daemon and the dir channel: the owner's direct chat carries it
// and can save to it (auto-approved); another sender's session has neither the tool nor a word of the memory;
// `/memory` shows the files to the owner only.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { workspaceId } from "../../src/memory/index";
import { cleanupBridges, makeBridge, outMessages, sendMessage, startDaemon, waitFor, waitForOut } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);

test("the owner's chat carries memory and saves to it; a stranger's session has no memory tool and no memory; /memory is the owner's", async () => {
  const b = makeBridge(fake.url);
  const memory = join(b.home, "memory");
  const projectNotes = join(memory, "projects", `${workspaceId(realpathSync(b.workspace))}.md`);
  mkdirSync(join(memory, "projects"), { recursive: true, mode: 0o700 });
  writeFileSync(join(memory, "USER.md"), "- The owner is called Ada-Lovelace-7.\n", { mode: 0o600 });
  writeFileSync(projectNotes, "- The home server is named quokka-9.\n", { mode: 0o600 });
  fake.queue(
    toolCalls([{ name: "memory", arguments: { action: "add", scope: "user", text: "Ada prefers voice notes transcribed." } }]),
    text("Noted, Ada."),
    text("hello stranger"),
  );
  await startDaemon(b);
  sendMessage(b, { text: "Please transcribe my voice notes from now on." });
  await waitForOut(b, 1, 20_000);
  sendMessage(b, { from: "stranger", text: "who is your owner?" });
  await waitFor(() => outMessages(b).some((m) => m.to === "stranger"), 20_000, "the stranger's answer");

  const [owner, , stranger] = fake.requests.map((r) => r.body);
  expect(toolNames(owner)).toContain("memory");
  expect(owner.instructions).toContain("- The owner is called Ada-Lovelace-7.");
  expect(owner.instructions).toContain("- The home server is named quokka-9.");
  expect(toolNames(stranger)).toEqual([]);
  const strangerText = JSON.stringify(stranger);
  for (const secret of ["Ada-Lovelace-7", "quokka-9", "voice notes", "# Memory"]) expect(strangerText).not.toContain(secret);
  // the owner's chat approves unasked: the note was written
  expect(readFileSync(join(memory, "USER.md"), "utf8")).toBe("- The owner is called Ada-Lovelace-7.\n- Ada prefers voice notes transcribed.\n");

  const requestsBefore = fake.requests.length;
  sendMessage(b, { text: "/memory" });
  sendMessage(b, { from: "stranger", text: "/memory" });
  await waitFor(() => outMessages(b).length >= 4, 10_000, "both /memory answers");
  const out = outMessages(b);
  const toOwner = out.filter((m) => m.to === "owner-1").at(-1)!.text;
  const toStranger = out.filter((m) => m.to === "stranger").at(-1)!.text;
  expect(toOwner).toContain("USER.md: 77 bytes of 4.0 KiB");
  expect(toOwner).toContain("- Ada prefers voice notes transcribed.");
  expect(toOwner).toContain("- The home server is named quokka-9.");
  expect(toStranger).toBe("/memory is for the owner of this SCV, in their direct chat.");
  expect(fake.requests.length).toBe(requestsBefore); // commands never reach the model
}, 60_000);
