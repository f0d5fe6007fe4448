// Hostile protocol input to the compiled `dist/scv server --stdio`: deep or wide JSON is refused before it is
// parsed, ids beyond 2^53 come back exact, unknown methods before initialize are -32002, and serving goes on.
import { afterAll, afterEach, expect, test } from "bun:test";
import { fakeHome, removeFakeHomes } from "../fake/binary";
import { type StdioServer, startStdioServer } from "../fake/stdio-client";

const servers: StdioServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
});
afterAll(removeFakeHomes);

function start(): StdioServer {
  const { env, workspace } = fakeHome("http://127.0.0.1:9/v1");
  const s = startStdioServer(env, workspace);
  servers.push(s);
  return s;
}

test("unknown method before initialize is -32002; ids beyond 2^53 are echoed digit for digit", async () => {
  const s = start();
  const big = "12345678901234567890123";
  s.send(`{"jsonrpc":"2.0","id":${big},"method":"frobnicate"}\n`);
  s.send(`{"jsonrpc":"2.0","id":-9007199254740993,"method":"initialize","params":{"protocol_version":3}}\n`);
  s.send(`{"jsonrpc":"2.0","id":7,"method":"frobnicate"}\n`);
  await s.waitFor(() => s.messages.length >= 3);
  expect(s.lines[0]).toStartWith(`{"jsonrpc":"2.0","id":${big},"error":{"code":-32002,`);
  expect(s.messages[0].error.message).toContain("send initialize");
  expect(s.lines[1]).toStartWith(`{"jsonrpc":"2.0","id":-9007199254740993,"result":{"protocol_version":3`);
  expect(s.messages[2]).toMatchObject({ id: 7, error: { code: -32601 } });
});

test("a million levels of nesting, and a line of a million values, are refused with -32600; the next request is answered", async () => {
  const s = start();
  expect((await s.request(1, "initialize", { protocol_version: 3 })).result).toBeDefined();
  s.send(`${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}\n`);
  s.send(`{"jsonrpc":"2.0","id":2,"method":"x","params":${'{"a":'.repeat(300)}1${"}".repeat(300)}}\n`);
  s.send(`[${"0,".repeat(1_000_000)}0]\n`);
  const answer = await s.request(3, "initialize", { protocol_version: 3 });
  expect(answer.result.protocol_version).toBe(3);
  const errors = s.messages.filter((m) => m.error);
  expect(errors.map((m) => [m.id, m.error.code])).toEqual([
    [null, -32600],
    [null, -32600],
    [null, -32600],
  ]);
  expect(errors[0].error.message).toContain("nested more than 256 levels deep");
  expect(errors[1].error.message).toContain("nested more than 256 levels deep");
  expect(errors[2].error.message).toContain("more than 100000 values");
});
