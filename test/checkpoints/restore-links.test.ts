// A restore never writes through a symbolic link planted in the workspace, and the plan confirmed is the plan
// applied. Through the compiled binary: a link planted at the temporary name a restore once used
// (`.<name>.scv-restore.<pid>.tmp`, the server's pid), over the stdio protocol; a folder swapped for a link to a
// folder outside, and a file edited, while `scv sessions rewind` waits for its confirmation in a terminal (tmux);
// a file changed between session.rewind's plan and its apply. Every payload points into this test's own temp dir;
// the files outside the workspace keep their content and their 0600 mode.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { stdioSessions } from "../fake/stdio-session";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(90_000);

const fake = fakeModelForFile();
const open = stdioSessions(fake);
const panes: Terminal[] = [];
afterEach(() => {
  for (const p of panes.splice(0)) p.close();
});

/** A fake home, and beside its workspace a folder `outside` holding a victim file (0600) and a victim folder. */
function home() {
  const h = fakeHome(fake.url);
  const root = join(h.home, "..");
  const outside = join(root, "outside");
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(join(outside, "victim"), "the person's secret\n", { mode: 0o600 });
  chmodSync(join(outside, "victim"), 0o600);
  writeFileSync(join(outside, "dir", "c.txt"), "outside c\n", { mode: 0o600 });
  chmodSync(join(outside, "dir", "c.txt"), 0o600);
  return { ...h, root, outside };
}

const write = (path: string, content: string, mode = "replace") => ({ name: "write", arguments: { path, content, mode } });

/** t1 writes a.txt; t2 rewrites it and creates sub/c.txt. Rewinding to t1 restores a.txt and deletes sub/c.txt. */
async function twoTurns(h: ReturnType<typeof home>) {
  writeFileSync(join(h.workspace, "a.txt"), "a0\n");
  const o = await open(h);
  await o.turn("first", toolCalls([write("a.txt", "a1\n")]), text("one"));
  await o.turn("second", toolCalls([write("a.txt", "a2\n"), write("sub/c.txt", "inside c\n", "create")]), text("two"));
  expect(readFileSync(join(h.workspace, "sub", "c.txt"), "utf8")).toBe("inside c\n");
  return o;
}

function expectOutsideUntouched(h: ReturnType<typeof home>) {
  expect(readFileSync(join(h.outside, "victim"), "utf8")).toBe("the person's secret\n");
  expect(statSync(join(h.outside, "victim")).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(h.outside, "dir", "c.txt"), "utf8")).toBe("outside c\n");
  expect(statSync(join(h.outside, "dir", "c.txt")).mode & 0o777).toBe(0o600);
}

test("a link planted at the restore's old temporary name is never written through (server protocol)", async () => {
  const h = home();
  const { s, sid } = await twoTurns(h);
  // The name the restore used to write a.txt's new content to, before renaming it into place.
  const planted = join(h.workspace, `.a.txt.scv-restore.${s.proc.pid}.tmp`);
  symlinkSync(join(h.outside, "victim"), planted);
  const plan = (await s.call("session.rewind", { session_id: sid, to_turn: "t1", files: true, conversation: false })).result;
  expect(plan.changes.map((c: any) => `${c.action} ${c.path}`)).toEqual(["restore a.txt", "delete sub/c.txt"]);
  const done = await s.call("session.rewind", { session_id: sid, to_turn: "t1", files: true, conversation: false, apply: true });
  expect(done.error).toBeUndefined();
  expect(done.result).toMatchObject({ applied: true, restored: ["a.txt"], deleted: ["sub/c.txt"] });
  expect(lstatSync(join(h.workspace, "a.txt")).isFile()).toBe(true); // a file, not the planted link renamed into place
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("a1\n");
  expect(lstatSync(planted).isSymbolicLink()).toBe(true);
  expectOutsideUntouched(h);
});

test("a file changed between session.rewind's plan and its apply is named, and nothing is restored", async () => {
  const h = home();
  const { s, sid } = await twoTurns(h);
  const plan = (await s.call("session.rewind", { session_id: sid, to_turn: "t1", conversation: false })).result;
  writeFileSync(join(h.workspace, "a.txt"), "the person's edit while reading the plan\n");
  const refused = await s.call("session.rewind", { session_id: sid, to_turn: "t1", conversation: false, apply: true, overwrite: ["*"], plan_id: plan.plan_id });
  expect(refused.error.code).toBe(-32602);
  expect(refused.error.message).toContain("a.txt changed since the plan was made");
  expect(refused.error.data.changed).toEqual(["a.txt"]);
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("the person's edit while reading the plan\n");
  expect(existsSync(join(h.workspace, "sub", "c.txt"))).toBe(true); // nothing of the plan was applied
  // The new plan names the file as changed outside SCV; confirmed as shown, it is kept.
  const again = (await s.call("session.rewind", { session_id: sid, to_turn: "t1", conversation: false })).result;
  expect(again.changes.find((c: any) => c.path === "a.txt").changed_outside).toBe(true);
  const done = (await s.call("session.rewind", { session_id: sid, to_turn: "t1", conversation: false, apply: true, plan_id: again.plan_id })).result;
  expect(done).toMatchObject({ kept: ["a.txt"], deleted: ["sub/c.txt"] });
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("the person's edit while reading the plan\n");
});

test.skipIf(!needs("tmux"))("scv sessions rewind: a folder swapped for a link outside and a file edited while it asks are named, asked again, never written through", async () => {
  const h = home();
  const { s, sid } = await twoTurns(h);
  await s.call("session.close", { session_id: sid });
  const t = openTerminal([requireBinary(), "sessions", "rewind", sid, "--to", "t1", "--files-only"], { env: h.env, cwd: h.workspace });
  panes.push(t);
  await t.waitFor("Apply? [y/N]");
  expect(t.screen()).toContain("delete  sub/c.txt");
  // While the person reads the plan: `sub` becomes a link to a folder outside holding a c.txt, and a.txt is edited.
  renameSync(join(h.workspace, "sub"), join(h.root, "sub-moved"));
  symlinkSync(join(h.outside, "dir"), join(h.workspace, "sub"));
  writeFileSync(join(h.workspace, "a.txt"), "edited meanwhile\n");
  t.type("y");
  t.keys("Enter");
  const screen = await t.waitFor((text) => text.split("Apply? [y/N]").length === 3);
  expect(screen).toContain("nothing was restored: a.txt, sub/c.txt changed since the plan was made");
  expectOutsideUntouched(h);
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("edited meanwhile\n");
  // The new plan: a.txt changed outside SCV (kept unless named), sub/ no longer a folder SCV walks.
  const second = screen.slice(screen.indexOf("restore the files", screen.indexOf("nothing was restored")));
  expect(second).toContain("a.txt  (changed outside SCV");
  expect(second).not.toContain("sub/c.txt");
  t.type("y");
  t.keys("Enter");
  expect(await t.exitCode()).toBe(0);
  expect(t.screen()).toContain("kept a.txt");
  expectOutsideUntouched(h);
  expect(readFileSync(join(h.workspace, "a.txt"), "utf8")).toBe("edited meanwhile\n");
  expect(lstatSync(join(h.workspace, "sub")).isSymbolicLink()).toBe(true);
});

test("a folder replaced by a link to a folder outside is refused by name: nothing is written through it", async () => {
  const h = home();
  const o = await open(h);
  await o.turn("first", toolCalls([write("sub/c.txt", "c1\n", "create")]), text("one"));
  await o.turn("second", toolCalls([write("sub/c.txt", "c2\n")]), text("two"));
  rmSync(join(h.workspace, "sub"), { recursive: true });
  symlinkSync(join(h.outside, "dir"), join(h.workspace, "sub"));
  const plan = (await o.s.call("session.rewind", { session_id: o.sid, to_turn: "t1", conversation: false })).result;
  expect(plan.changes.map((c: any) => `${c.action} ${c.path}`)).toEqual(["create sub/c.txt"]);
  // Gone since SCV recorded it, so kept unless named: the person names it.
  const refused = await o.s.call("session.rewind", { session_id: o.sid, to_turn: "t1", conversation: false, apply: true, overwrite: ["sub/c.txt"], plan_id: plan.plan_id });
  expect(refused.error.message).toContain(`nothing was restored: "sub" is not a folder (a symbolic link or a file) now; refused to write through it`);
  expectOutsideUntouched(h);
  expect(readdirSync(join(h.outside, "dir"))).toEqual(["c.txt"]); // no temporary file left there either
});

test.skipIf(!needs("tmux"))("the TUI's /undo: a file edited while it asks is named, the new plan shown and asked again", async () => {
  const h = home();
  writeFileSync(join(h.home, "config.toml"), `${readFileSync(join(h.home, "config.toml"), "utf8")}[tools.approval]\nwrite = "allow"\n`);
  writeFileSync(join(h.workspace, "notes.txt"), "v0\n");
  const t = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
  panes.push(t);
  await t.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(toolCalls([write("notes.txt", "v1\n"), write("more.txt", "m1\n", "create")]), text("wrote v1"));
  t.type("first edit");
  t.keys("Enter");
  await t.waitFor("wrote v1");
  t.type("/undo");
  t.keys("Enter");
  await t.waitFor("Apply? y yes");
  writeFileSync(join(h.workspace, "notes.txt"), "the person's edit\n");
  t.type("y");
  await t.waitFor("not rewound: nothing was restored: notes.txt changed since the plan was made");
  await t.waitFor((s) => /changed outside SCV since its last checkpoint[\s\S]*-the person's edit[\s\S]*Apply\? y yes/.test(s));
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("the person's edit\n");
  expect(existsSync(join(h.workspace, "more.txt"))).toBe(true); // nothing of the first plan was applied
  t.type("y"); // the new plan keeps the edited file (changed outside SCV) and removes the created one
  await t.waitFor("kept notes.txt");
  expect(readFileSync(join(h.workspace, "notes.txt"), "utf8")).toBe("the person's edit\n");
  expect(existsSync(join(h.workspace, "more.txt"))).toBe(false);
});
