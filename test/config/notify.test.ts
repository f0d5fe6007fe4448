// [notify] (issue 54): the defaults, the owner's places in order, and a clear error naming the key for a channel
// that is not configured, an account it does not use, or a conversation that is not the owner's.
import { afterEach, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load";
import { configErrorOf, configHome, removeConfigHomes } from "./config-homes";

afterEach(removeConfigHomes);

const DIR = `[channels.dir]\npath = "/tmp/nowhere"\nowner = "owner-1"\n`;

test("defaults: no list, after_seconds 60, long_turn_seconds 120, no quiet hours", () => {
  const { env, ws } = configHome(DIR);
  const n = loadConfig({ cwd: ws, env }).config.notify!;
  expect(n).toEqual({ after_seconds: 60, long_turn_seconds: 120 });
});

test("a list of configured places and quiet hours load as written", () => {
  const { env, ws } = configHome(`${DIR}[notify]\nto = ["dir:owner-1", "web", "desktop"]\nquiet_hours = "22:30-07:00"\nafter_seconds = 1\n`);
  expect(loadConfig({ cwd: ws, env }).config.notify).toEqual({ to: ["dir:owner-1", "web", "desktop"], quiet_hours: "22:30-07:00", after_seconds: 1, long_turn_seconds: 120 });
});

test("errors name the key: a channel not configured, another account, a non-owner, a bad entry, bad hours, 0 seconds, a project file", () => {
  const cases: [string, RegExp][] = [
    [`[notify]\nto = ["telegram"]\n`, /notify\.to\[0\] \("telegram"\): no \[channels\.telegram\] is configured; configure it or remove the entry/],
    [`${DIR}[notify]\nto = ["web", "dir/work"]\n`, /notify\.to\[1\] \("dir\/work"\): \[channels\.dir\] uses account "default", not "work"/],
    [`${DIR}[notify]\nto = ["dir:stranger"]\n`, /notify\.to\[0\] \("dir:stranger"\): "stranger" is not the owner's conversation \(the owner of \[channels\.dir\] is "owner-1"\); notices go only to the owner/],
    [`[channels.telegram]\nenabled = false\n[notify]\nto = ["telegram"]\n`, /notify\.to\[0\] \("telegram"\): no \[channels\.telegram\] is configured \(it has enabled = false\)/],
    [`[notify]\nto = ["email"]\n`, /notify\.to\.0: each entry is web, desktop, or a channel/],
    [`[notify]\nquiet_hours = "22-7"\n`, /notify\.quiet_hours: must be "HH:MM-HH:MM"/],
    [`[notify]\nafter_seconds = 0\n`, /notify\.after_seconds: must be greater than 0/],
    [`[notify]\nlong_turn = 5\n`, /notify.*long_turn/],
  ];
  for (const [text, message] of cases) {
    const { env, ws } = configHome(text);
    expect(configErrorOf(() => loadConfig({ cwd: ws, env }))).toMatch(message);
  }
  const { env, ws } = configHome(DIR, `[notify]\nto = ["web"]\n`);
  expect(configErrorOf(() => loadConfig({ cwd: ws, env }))).toMatch(/notify\.to: a project file cannot set notify/);
});
