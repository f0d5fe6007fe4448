// Checkpoints through the compiled binary with the scripted model: three turns of edits (write, a bash `sed -i`,
// a created file) rewound to turn 1 (files and conversation), conversation only and files only (from the CLI),
// /undo and /redo over the protocol, a stand-in delegated agent's edit restored, a file changed meanwhile kept
// and named, node_modules never copied, a damaged object reported.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASH, FAKE_AGENT } from "../fake/agent-harness";
import { CODEX_OK } from "../fake/agent-streams";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { stdioSessions } from "../fake/stdio-session";

// Creating 20,000 files and running the binary take seconds on a loaded machine.
setDefaultTimeout(120_000);

const fake = fakeModelForFile();
const open = stdioSessions(fake);
afterEach(() => fake.clear());

function home(extraConfig = "", extraEnv: Record<string, string> = {}) {
  const base = fakeHome(fake.url, extraConfig);
  return { ...base, env: { ...base.env, ...extraEnv } };
}

const write = (path: string, content: string, mode = "replace") => ({ name: "write", arguments: { path, content, mode } });
const bash = (command: string) => ({ name: "bash", arguments: { command } });

/** Three turns: t1 writes a.txt; t2 rewrites it, `sed -i` on b.txt, creates c.txt by bash; t3 rewrites a.txt. */
async function threeTurns(h: ReturnType<typeof home>) {
  writeFileSync(join(h.workspace, "a.txt"), "a0\n");
  writeFileSync(join(h.workspace, "b.txt"), "hello world\n");
  const o = await open(h);
  await o.turn("first change", toolCalls([write("a.txt", "a1\n")]), text("did one"));
  const beforeT2 = { a: readFileSync(join(h.workspace, "a.txt")), b: readFileSync(join(h.workspace, "b.txt")) };
  await o.turn("second change", toolCalls([write("a.txt", "a2\n"), bash("sed -i 's/world/there/' b.txt && echo made > c.txt")]), text("did two"));
  await o.turn("third change", toolCalls([write("a.txt", "a3\n")]), text("did three"));
  expect(readFileSync(join(h.workspace, "b.txt"), "utf8")).toBe("hello there\n");
  expect(existsSync(join(h.workspace, "c.txt"))).toBe(true);
  return { ...o, beforeT2 };
}

test("rewind to turn 1 (files and conversation): files as before turn 2, the created file gone, the next request without turns 2-3, a resume too", async () => {
  const h = home();
  const { s, sid, turn, beforeT2 } = await threeTurns(h);
  const plan = (await s.call("session.rewind", { session_id: sid, to_turn: "t1" })).result;
  expect(plan.applied).toBe(false);
  expect(plan.changes.map((c: any) => `${c.action} ${c.path}`)).toEqual(["restore a.txt", "restore b.txt", "delete c.txt"]);
  expect(plan.changes[0].diff).toContain("-a3");
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("a3\n"); // a plan changes nothing
  const done = (await s.call("session.rewind", { session_id: sid, to_turn: "t1", apply: true })).result;
  expect(done).toMatchObject({ applied: true, conversation_rewound: 2, kept: [] });
  expect(readFileSync(join(h.workspace, "a.txt"))).toEqual(beforeT2.a);
  expect(readFileSync(join(h.workspace, "b.txt"))).toEqual(beforeT2.b);
  expect(existsSync(join(h.workspace, "c.txt"))).toBe(false);
  await turn("after the rewind", text("ok"));
  const input = JSON.stringify(fake.requests.at(-1)!.body.input);
  expect(input).toContain("first change");
  expect(input).not.toContain("second change");
  expect(input).not.toContain("third change");
  await s.call("session.close", { session_id: sid });
  // A new server resumes the rewound history.
  const resumed = (await open(h, sid)).opened;
  expect(resumed.turns.map((t: any) => t.prompt)).toEqual(["first change", "after the rewind"]);
  // The checkpoint store lives under SCV_HOME, private, and nothing of it is in the workspace.
  expect(readdirSync(h.workspace).sort()).toEqual(["a.txt", "b.txt"]);
  expect(existsSync(join(h.home, "state", "checkpoints", "objects"))).toBe(true);
});

test("the CLI: files only, then conversation only; a file changed meanwhile is kept and named", async () => {
  const h = home();
  const { s, sid } = await threeTurns(h);
  await s.call("session.close", { session_id: sid });
  writeFileSync(join(h.workspace, "b.txt"), "the person's own edit\n");
  const refused = await runBinary(["sessions", "rewind", sid, "--to", "1", "--files-only"], h.env, h.workspace);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("confirm with --yes");
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("a3\n");
  const files = await runBinary(["sessions", "rewind", sid, "--to", "t1", "--files-only", "--yes"], h.env, h.workspace);
  expect(files.code).toBe(0);
  expect(files.stdout).toContain("restore a.txt");
  expect(files.stdout).toContain("b.txt  (changed outside SCV");
  expect(files.stdout).toContain("kept b.txt");
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("a1\n");
  expect(readFileSync(join(h.workspace, "b.txt"), "utf8")).toBe("the person's own edit\n");
  expect(existsSync(join(h.workspace, "c.txt"))).toBe(false);
  // The conversation was left whole; now only it is rewound.
  expect((await runBinary(["sessions", "show", sid], h.env, h.workspace)).stdout).toContain("third change");
  const conv = await runBinary(["sessions", "rewind", sid, "--to", "t1", "--conversation-only", "-y"], h.env, h.workspace);
  expect(conv.code).toBe(0);
  expect(conv.stdout).toContain("2 turns after t1 leave it");
  const shown = (await runBinary(["sessions", "show", sid], h.env, h.workspace)).stdout;
  expect(shown).toContain("first change");
  expect(shown).not.toContain("third change");
  // The session file kept every record (append-only): the rewound turns are still in it.
  expect(readFileSync(join(h.home, "state", "sessions", `${sid}.jsonl`), "utf8")).toContain("third change");
  const bad = await runBinary(["sessions", "rewind", sid, "--to", "later"], h.env, h.workspace);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("a turn looks like t2");
  // Removing the session removes its checkpoints.
  const log = join(h.home, "state", "checkpoints", "sessions", `${sid}.jsonl`);
  expect(existsSync(log)).toBe(true);
  expect((await runBinary(["sessions", "rm", sid], h.env, h.workspace)).code).toBe(0);
  expect(existsSync(log)).toBe(false);
});

test("undo and redo the last turn's files, including what a stand-in delegated agent changed", async () => {
  const h = home(`[agents.codex]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "exec"]\n`, {});
  const out = join(h.home, "..", "agent-stdout.jsonl");
  writeFileSync(out, CODEX_OK);
  Object.assign(h.env, { FAKE_AGENT_STDOUT: out, FAKE_AGENT_WRITE: "parser.ts=rewritten by the agent" });
  writeFileSync(join(h.workspace, "parser.ts"), "original\n");
  const { s, sid, turn } = await open(h);
  await turn("delegate", toolCalls([{ name: "agent", arguments: { agent: "codex", prompt: "rewrite the parser" } }]), text("codex did it"));
  expect(readFileSync(join(h.workspace, "parser.ts"), "utf8")).toBe("rewritten by the agent\n");
  const cps = (await s.call("session.checkpoints", { session_id: sid })).result;
  expect(cps).toMatchObject({ enabled: true, undo: "t1" });
  const undone = (await s.call("session.rewind", { session_id: sid, undo: true, apply: true })).result;
  expect(undone.restored).toEqual(["parser.ts"]);
  expect(readFileSync(join(h.workspace, "parser.ts"), "utf8")).toBe("original\n");
  expect((await s.call("session.checkpoints", { session_id: sid })).result.redo).toBe("t1");
  await s.call("session.rewind", { session_id: sid, redo: true, apply: true });
  expect(readFileSync(join(h.workspace, "parser.ts"), "utf8")).toBe("rewritten by the agent\n");
  const nothing = await s.call("session.rewind", { session_id: sid, redo: true });
  expect(nothing.error.message).toContain("nothing to redo");
});

test("node_modules of 20,000 files is never copied; a damaged object makes its point unavailable with the reason", async () => {
  const h = home();
  const nm = join(h.workspace, "node_modules");
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(nm, `p${d}`), { recursive: true });
    for (let f = 0; f < 200; f++) writeFileSync(join(nm, `p${d}`, `f${f}.js`), `module.exports = ${d * 1000 + f};\n`);
  }
  writeFileSync(join(h.workspace, "a.txt"), "a0\n");
  const { s, sid, turn } = await open(h);
  await turn("change", toolCalls([write("a.txt", "a1\n")]), text("ok"));
  const notices = s.messages.filter((m: any) => m.method === "model.notice").map((m: any) => m.params.message).join("\n");
  expect(notices).toContain("node_modules/");
  expect(notices).toContain("files outside the workspace are never covered");
  const objects = join(h.home, "state", "checkpoints", "objects");
  let count = 0;
  for (const sub of readdirSync(objects)) count += readdirSync(join(objects, sub)).length;
  expect(count).toBeLessThan(10); // a.txt twice and a listing or two, not 20,000 modules
  // Damage a.txt's first content: undo (which needs it) is unavailable and says why; nothing changes.
  const hash = new Bun.CryptoHasher("sha256").update("a0\n").digest("hex");
  writeFileSync(join(objects, hash.slice(0, 2), hash.slice(2)), "garbage");
  const failed = await s.call("session.rewind", { session_id: sid, undo: true, apply: true });
  expect(failed.error.message).toMatch(/nothing was restored: checkpoint object [0-9a-f]{12} is damaged/);
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("a1\n");
});
