// Protocol errors over a real server connection: each bad input gets a JSON-RPC error and serving goes on.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ERROR_CODES, MAX_LINE_BYTES } from "../../src/protocol/schema";
import { createServerConnection } from "../../src/server/server";

/** Temporary SCV_HOMEs the configuration-error tests make. */
const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function connect(env: NodeJS.ProcessEnv = process.env) {
  const out: any[] = [];
  const conn = createServerConnection({ env, send: async (m) => void out.push(m) });
  return { conn, out, last: () => out[out.length - 1] };
}

test("malformed JSON, invalid envelope, unknown method, bad params, then a good request still works", async () => {
  const { conn, out } = connect();
  await conn.handleLine("{not json");
  await conn.handleLine(JSON.stringify({ jsonrpc: "1.0", id: 1, method: "initialize" }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "nope", params: {} }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocol_version: "3" } }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "initialize", params: { protocol_version: 3 } }));
  expect(out[0]).toMatchObject({ id: null, error: { code: ERROR_CODES.parse_error } });
  expect(out[1]).toMatchObject({ id: 1, error: { code: ERROR_CODES.invalid_request } });
  // Before initialize an unknown method is a "send initialize first" error, like every other method.
  expect(out[2]).toMatchObject({ id: 2, error: { code: ERROR_CODES.not_initialized } });
  expect(out[2].error.message).toContain("send initialize");
  expect(out[3]).toMatchObject({ id: 3, error: { code: ERROR_CODES.invalid_params } });
  expect(out[3].error.message).toContain("protocol_version");
  expect(out[4]).toMatchObject({ id: 4, result: { protocol_version: 3, server: { name: "scv" } } });
});

test("JSON that is not a request object: batches, null, strings and method names from Object.prototype", async () => {
  const { conn, out } = connect();
  for (const line of ["[1,2]", "null", '"hi"', "42"]) await conn.handleLine(line);
  for (const method of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
    await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: method, method, params: {} }));
  }
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "initialize", params: null }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "initialize", params: [3] }));
  for (const m of out.slice(0, 4)) {
    expect(m).toMatchObject({ id: null, error: { code: ERROR_CODES.invalid_request } });
    expect(m.error.message).toMatch(/^invalid request: the message: .*expected object/);
  }
  for (const m of out.slice(4, 8)) expect(m.error.code).toBe(ERROR_CODES.not_initialized);
  expect(out[8]).toMatchObject({ id: 9, error: { code: ERROR_CODES.invalid_params } });
  expect(out[9]).toMatchObject({ id: 10, error: { code: ERROR_CODES.invalid_params } });
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 11, method: "initialize", params: { protocol_version: 3 } }));
  expect(out[10]).toMatchObject({ id: 11, result: { protocol_version: 3 } });
  // Once initialized, an unknown method is -32601 and names the known ones.
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 12, method: "toString", params: {} }));
  expect(out[11]).toMatchObject({ id: 12, error: { code: ERROR_CODES.method_not_found } });
  expect(out[11].error.message).toContain("session.start");
});

test("request ids beyond 2^53 are echoed with their exact digits", async () => {
  const lines: string[] = [];
  const conn = createServerConnection({ env: process.env, send: async (m) => void lines.push(JSON.stringify(m)) });
  const ids = ["12345678901234567890123", "-9007199254740993", "9007199254740993"];
  await conn.handleLine(`{"jsonrpc":"2.0","id":${ids[0]},"method":"nope"}`);
  await conn.handleLine(`{"jsonrpc":"2.0","id":${ids[1]},"method":"initialize","params":{"protocol_version":3}}`);
  await conn.handleLine(`{"jsonrpc":"2.0","params":{"id":1},"id":${ids[2]},"method":"session.start"}`);
  expect(lines[0]).toStartWith(`{"jsonrpc":"2.0","id":${ids[0]},"error":{"code":-32002`);
  expect(lines[1]).toStartWith(`{"jsonrpc":"2.0","id":${ids[1]},"result":`);
  expect(lines[2]).toStartWith(`{"jsonrpc":"2.0","id":${ids[2]},"error":{"code":-32602`);
  await conn.handleLine(`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocol_version":3}}`);
  expect(JSON.parse(lines[3]!)).toMatchObject({ id: null, error: { code: ERROR_CODES.invalid_request } });
});

test("a line the reader refused for its shape is answered -32600 with the limit it broke", async () => {
  const { conn, out } = connect();
  await conn.handleRejected(5000, "nested more than 256 levels deep");
  expect(out[0]).toMatchObject({ id: null, error: { code: ERROR_CODES.invalid_request } });
  expect(out[0].error.message).toContain("nested more than 256 levels deep");
});

test("wrong protocol version and requests before initialize", async () => {
  const { conn, out } = connect();
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session.start", params: { cwd: "/" } }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "initialize", params: { protocol_version: 2 } }));
  expect(out[0].error.code).toBe(ERROR_CODES.not_initialized);
  expect(out[1].error).toMatchObject({ code: ERROR_CODES.unsupported_version, data: { supported: [3] } });
});

test("initialize ignores unknown params keys (a newer client, client_info); other methods stay strict", async () => {
  const { conn, out } = connect();
  const params = { protocol_version: 3, client_info: { name: "acp-client", version: "9" }, capabilities: {} };
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params }));
  expect(out[0].result).toMatchObject({ protocol_version: 3, server: { name: "scv" } });
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "turn.cancel", params: { session_id: "s-x", frobnicate: true } }));
  expect(out[1].error.code).toBe(ERROR_CODES.invalid_params);
  expect(out[1].error.message).toContain("frobnicate");
});

test("oversized line, unknown session, bad cwd, unknown approval", async () => {
  const { conn, out } = connect();
  await conn.handleOversize(MAX_LINE_BYTES + 1);
  expect(out[0].error.code).toBe(ERROR_CODES.invalid_request);
  expect(out[0].error.message).toContain("exceeds");
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "turn.start", params: { session_id: "s-x", prompt: "hi" } }));
  expect(out[2].error.code).toBe(ERROR_CODES.unknown_session);
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session.start", params: { cwd: "/definitely/not/here" } }));
  expect(out[3].error.code).toBe(ERROR_CODES.invalid_params);
  expect(out[3].error.message).toContain("not an existing directory");
});

test("no API key for the default endpoint: a configuration error that says how to fix it", async () => {
  const home = mkdtempSync(join(tmpdir(), "scv-rpc-"));
  homes.push(home);
  const { conn, out } = connect({ SCV_HOME: home, HOME: home, PATH: process.env.PATH });
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: home } }));
  expect(out[1].error.code).toBe(ERROR_CODES.configuration);
  expect(out[1].error.message).toContain("OPENAI_API_KEY");
  expect(out[1].error.message).toContain("base_url");
});

test("a user profile without api_key_env is told to name its key, not to set a variable it would not read", async () => {
  const home = mkdtempSync(join(tmpdir(), "scv-rpc-"));
  homes.push(home);
  writeFileSync(join(home, "config.toml"), `[providers.openai]\nmodel = "m"\n`);
  const { conn, out } = connect({ SCV_HOME: home, HOME: home, PATH: process.env.PATH, OPENAI_API_KEY: "sk-present-but-unused-1234" });
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: home } }));
  expect(out[1].error.code).toBe(ERROR_CODES.configuration);
  expect(out[1].error.message).toContain(`add api_key_env = "OPENAI_API_KEY"`);
  expect(out[1].error.message).toContain("[providers.openai]");
  expect(out[1].error.message).not.toContain("sk-present");
});

test("notifications from the client (no id) get no reply, even when invalid", async () => {
  const { conn, out } = connect();
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", method: "nope" }));
  await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: { protocol_version: 3 } }));
  expect(out).toEqual([]);
});
