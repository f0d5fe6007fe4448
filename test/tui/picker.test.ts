import { expect, test } from "bun:test";
import type { SessionSummary } from "../../src/sessions/index";
import { createStyle } from "../../src/terminal/style";
import { SessionPicker } from "../../src/tui/picker";

function summary(id: string, turns: number, first_prompt: string): SessionSummary {
  return { id, workspace: "/ws", started_at: 0, last_activity: 0, turns, first_prompt, model: "m" };
}

const items = [summary("s-aaaa0001", 1, "fix the build"), summary("s-bbbb0002", 3, "write the docs")];

test("the selection wraps both ways; Tab moves down; Enter opens the selected session, Esc cancels", () => {
  const picker = new SessionPicker(items, true);
  expect(picker.key({ kind: "up" })).toBeUndefined();
  expect(picker.key({ kind: "enter" })).toEqual({ kind: "open", id: "s-bbbb0002" });
  picker.key({ kind: "tab" });
  expect(picker.key({ kind: "enter" })).toEqual({ kind: "open", id: "s-aaaa0001" });
  picker.key({ kind: "down" });
  picker.key({ kind: "down" });
  expect(picker.key({ kind: "enter" })).toEqual({ kind: "open", id: "s-aaaa0001" });
  expect(picker.key({ kind: "escape" })).toEqual({ kind: "cancel" });
  expect(picker.key({ kind: "text", text: "x" })).toBeUndefined();
  expect(picker.startFresh).toBe(true);
});

test("a heading, then one row a session, the selected one marked, rows cut to the width", () => {
  const picker = new SessionPicker(items, false);
  picker.key({ kind: "down" });
  const lines = picker.lines(createStyle(false), 40);
  expect(lines[0]).toBe("Resume which session? (Up/Down, Enter to open, Esc to cancel)");
  expect(lines[1]).toStartWith("  s-aaaa0001  ");
  expect(lines[2]).toStartWith("› s-bbbb0002  ");
  expect(lines.slice(1).map((l) => Bun.stringWidth(l))).toEqual([40, 40]);
  expect(lines[1]).toEndWith("…");
  expect(picker.lines(createStyle(false), 200)[2]).toEndWith("  3 turns  write the docs");
  expect(picker.lines(createStyle(false), 200)[1]).toEndWith("  1 turn  fix the build");
});
