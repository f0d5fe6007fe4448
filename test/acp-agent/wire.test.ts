// `scv acp` on the raw wire: the exact error replies to bad lines, the fast `initialize`, and a provider with no
// key, read straight from the binary's stdout.
import { afterAll, expect, test } from "bun:test";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";

afterAll(removeFakeHomes);

/** Sends lines to `scv acp` and returns the replies once `count` arrived. */
async function exchange(lines: string[], count: number, home = fakeHome("http://127.0.0.1:9/v1")): Promise<{ replies: any[]; stderr: string }> {
  const proc = Bun.spawn([requireBinary(), "acp"], { cwd: home.workspace, env: home.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  for (const l of lines) proc.stdin.write(`${l}\n`);
  proc.stdin.flush();
  const replies: any[] = [];
  let buf = "";
  const decoder = new TextDecoder();
  const timer = setTimeout(() => proc.kill(), 25_000); // a hang fails; a busy machine is not one
  for await (const chunk of proc.stdout) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) !== -1) {
      replies.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
    if (replies.length >= count) break;
  }
  proc.stdin.end();
  await proc.exited;
  clearTimeout(timer);
  return { replies, stderr: await new Response(proc.stderr).text() };
}

const rpc = (id: unknown, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

test("bad lines get ACP's errors in order and the agent keeps serving", async () => {
  const { replies } = await exchange(
    [
      rpc(1, "session/list", {}),
      "not json",
      "[1,2]",
      '{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}',
      rpc("init", "initialize", { protocolVersion: 7, clientCapabilities: {} }),
      rpc(2, "session/nope", {}),
      rpc(3, "session/new", { cwd: "rel", mcpServers: [] }),
      rpc(4, "session/new", { mcpServers: [] }),
      rpc(5, "session/cancel", { sessionId: "x" }),
      JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "x" } }),
      rpc(6, "session/list", {}),
    ],
    10,
  );
  const byId = (id: unknown) => replies.find((r) => r.id === id);
  expect(byId(1).error.code).toBe(-32600);
  expect(byId(1).error.message).toContain("before initialize");
  const nulls = replies.filter((r) => r.id === null).map((r) => r.error.code);
  expect(nulls).toEqual([-32700, -32600, -32600]);
  // A client asking for another version gets the one SCV speaks.
  expect(byId("init").result.protocolVersion).toBe(1);
  expect(byId(2).error.code).toBe(-32601);
  expect(byId(3).error).toMatchObject({ code: -32602, message: expect.stringContaining("absolute path") });
  expect(byId(4).error.code).toBe(-32602);
  expect(byId(5).error.code).toBe(-32601); // session/cancel is a notification; as a request it is not served
  expect(byId(6).result).toEqual({ sessions: [] });
});

test("a provider without a key fails session/new with the config file and how to set the key", async () => {
  const home = fakeHome("https://api.openai.com/v1");
  const { replies } = await exchange([rpc(1, "initialize", { protocolVersion: 1 }), rpc(2, "session/new", { cwd: home.workspace, mcpServers: [] })], 2, home);
  const err = replies.find((r) => r.id === 2).error;
  expect(err.code).toBe(-32603);
  expect(err.message).toContain(`${home.home}/config.toml`);
  expect(err.message).toContain("api_key");
});

test("a line over 16 MiB is answered with the request's own id (read from its start or its end), and the agent keeps serving", async () => {
  const big = "A".repeat(16 * 1024 * 1024 + 10);
  const image = (data: string) => ({ sessionId: "x", prompt: [{ type: "image", mimeType: "image/png", data }] });
  const atStart = rpc(41, "session/prompt", image(big));
  // An "id" inside params comes first here; only the top-level one, the object's last member, counts.
  const atEnd = `{"jsonrpc":"2.0","method":"session/prompt","params":{"id":99,"data":"${big}"},"id":"tail-7"}`;
  const { replies } = await exchange([atStart, atEnd, rpc(42, "session/list", {})], 3);
  expect(replies[0]).toMatchObject({ id: 41, error: { code: -32600 } });
  expect(replies[0].error.message).toContain("exceeds the 16777216-byte limit");
  expect(replies[1]).toMatchObject({ id: "tail-7", error: { code: -32600 } });
  expect(replies[2].id).toBe(42);
}, 60_000);

test("an over-limit line whose id cannot be read closes the connection with a clear error", async () => {
  const big = "B".repeat(16 * 1024 * 1024 + 10);
  const hidden = `{"jsonrpc":"2.0","method":"session/prompt","params":{"data":"${big}"},"id":9,"meta":{}}`;
  const { replies, stderr } = await exchange([hidden, rpc(43, "session/list", {})], 2);
  expect(replies).toHaveLength(1);
  expect(replies[0]).toMatchObject({ id: null, error: { code: -32600 } });
  expect(replies[0].error.message).toContain("the connection closes");
  expect(stderr).toContain("closing: a ");
  expect(stderr).toContain("its request id could not be read");
}, 60_000);
