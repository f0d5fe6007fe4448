// The model's plan in the interactive session (tmux): shown above the prompt as plan.updated events arrive, and
// again after the session is resumed.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(40_000);

let fake: FakeModel | undefined;
const panes: Terminal[] = [];
afterEach(async () => {
  for (const p of panes.splice(0)) p.close();
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

test.skipIf(!needs("tmux"))("plan updates appear above the prompt and come back on resume", async () => {
  fake = await startFakeModel();
  const h = fakeHome(fake.url);
  const first = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
  panes.push(first);
  await first.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(
    toolCalls([{ name: "plan", arguments: { items: [{ text: "read the code", status: "in_progress" }, { text: "write the fix", status: "pending" }] } }]),
    toolCalls([{ name: "plan", arguments: { items: [{ text: "read the code", status: "done" }, { text: "write the fix", status: "in_progress" }] } }]),
    text("Working through the plan."),
  );
  first.type("fix it");
  first.keys("Enter");
  const screen = await first.waitFor("Working through the plan.");
  await first.waitFor("plan · 1/2 done");
  const lines = first.screen().split("\n");
  const planAt = lines.findIndex((l) => l.includes("plan · 1/2 done"));
  expect(lines[planAt + 1]).toContain("[x] read the code");
  expect(lines[planAt + 2]).toContain("[>] write the fix");
  // Above the prompt: the prompt line comes after the plan.
  expect(lines.findIndex((l, i) => i > planAt && l.startsWith("›"))).toBeGreaterThan(planAt + 2);
  expect(screen).toContain("✓ plan: 1/2 done");
  first.keys("C-d");
  expect(await first.exitCode()).toBe(0);

  const second = openTerminal([requireBinary(), "--continue"], { env: h.env, cwd: h.workspace });
  panes.push(second);
  await second.waitFor("resumed s-");
  await second.waitFor("plan · 1/2 done");
  expect(second.screen()).toContain("[>] write the fix");
});
