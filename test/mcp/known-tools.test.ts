// Servers start when they are needed: through the compiled binary with the real server-everything, a run whose
// server's tool list is known offers the tools without starting it, a call starts it, a changed definition or a
// server that contradicts the known list is listed again, and a note about a server is said once, not every run.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { EVERYTHING, JS_RUNTIME, serverToml } from "../fake/mcp-servers";

const fake = fakeModelForFile();
setDefaultTimeout(60_000);

const offered = (request: any): string[] => (request?.body?.tools ?? []).map((t: any) => t.name ?? t.function?.name);
/** server-everything behind a shell that appends a line to `marker` each time the program is started. */
const countedEverything = (marker: string, extraArg = "stdio") => ({ command: "/bin/sh", args: ["-c", `echo started >> '${marker}'; exec '${JS_RUNTIME}' '${EVERYTHING}' ${extraArg}`] });
const starts = (marker: string) => (existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean).length : 0);

describe("a server's known tool list", () => {
  test("the first run lists the server; later runs offer its tools without starting it; a call starts it", async () => {
    const h = fakeHome(fake.url);
    const marker = join(h.home, "starts");
    writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8") + serverToml("everything", countedEverything(marker)));
    fake.queue(text("one"));
    let before = fake.requests.length;
    expect((await runBinary(["exec", "--yes", "hi"], h.env, h.workspace)).code).toBe(0);
    expect(offered(fake.requests[before])).toContain("everything__echo");
    expect(starts(marker)).toBe(1);
    const kept = JSON.parse(readFileSync(join(h.home, "state", "mcp-tools.json"), "utf8"));
    const [entry] = Object.values(kept.servers) as any[];
    expect(entry.known.server.name).toMatch(/everything/);
    expect(entry.known.tools.map((t: any) => t.name)).toContain("echo");

    // Known now: offered, not started.
    fake.queue(text("two"));
    before = fake.requests.length;
    expect((await runBinary(["exec", "--yes", "hi"], h.env, h.workspace)).code).toBe(0);
    expect(offered(fake.requests[before])).toContain("everything__echo");
    expect(starts(marker)).toBe(1);

    // A call starts it, and the result reaches the model.
    fake.queue(toolCalls([{ name: "everything__echo", arguments: { message: "lazy hello" } }]), text("three"));
    const r = await runBinary(["exec", "--yes", "--json", "echo"], h.env, h.workspace);
    expect(r.code).toBe(0);
    expect(starts(marker)).toBe(2);
    expect(JSON.stringify(fake.requests.at(-1)!.body.input)).toContain("Echo: lazy hello");

    // Another definition (an argument changed) is unknown: listed again at the turn's start.
    const config = readFileSync(join(h.home, "config.toml"), "utf8");
    const changed = config.replace(serverToml("everything", countedEverything(marker)), serverToml("everything", countedEverything(marker, "stdio # another definition")));
    expect(changed).not.toBe(config);
    writeFileSync(join(h.home, "config.toml"), changed);
    fake.queue(text("four"));
    expect((await runBinary(["exec", "--yes", "hi"], h.env, h.workspace)).code).toBe(0);
    expect(starts(marker)).toBe(3);
  });

  test("a server that contradicts its known list (another version, other tools) has its new list kept and offered", async () => {
    const h = fakeHome(fake.url);
    const marker = join(h.home, "starts");
    writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8") + serverToml("everything", countedEverything(marker)));
    fake.queue(text("listed"));
    expect((await runBinary(["exec", "--yes", "hi"], h.env, h.workspace)).code).toBe(0);
    const file = join(h.home, "state", "mcp-tools.json");
    const kept = JSON.parse(readFileSync(file, "utf8"));
    const entry = Object.values(kept.servers)[0] as any;
    entry.known.server.version = "0.0.1-old";
    entry.known.tools = [{ name: "retired_tool", description: "gone since", inputSchema: { type: "object", properties: {} } }];
    writeFileSync(file, JSON.stringify(kept));

    fake.queue(toolCalls([{ name: "everything__retired_tool", arguments: {} }]), text("it failed"));
    const before = fake.requests.length;
    const r = await runBinary(["exec", "--yes", "--json", "use the old tool"], h.env, h.workspace);
    expect(r.code).toBe(0);
    expect(offered(fake.requests[before])).toEqual(expect.arrayContaining(["everything__retired_tool"]));
    expect(offered(fake.requests[before])).not.toContain("everything__echo");
    expect(starts(marker)).toBe(2);
    const now = Object.values(JSON.parse(readFileSync(file, "utf8")).servers)[0] as any;
    expect(now.known.server.version).not.toBe("0.0.1-old");
    expect(now.known.tools.map((t: any) => t.name)).toContain("echo");

    fake.queue(text("new list"));
    const next = fake.requests.length;
    expect((await runBinary(["exec", "--yes", "hi"], h.env, h.workspace)).code).toBe(0);
    expect(offered(fake.requests[next])).toContain("everything__echo");
    expect(offered(fake.requests[next])).not.toContain("everything__retired_tool");
    expect(starts(marker)).toBe(2);
  });

  test("a call to a known server's tool asks to start it when its connection is not remembered; denied, nothing starts", async () => {
    const h = fakeHome(fake.url);
    const marker = join(h.home, "starts");
    writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8") + serverToml("everything", countedEverything(marker)));
    fake.queue(text("listed"));
    expect((await runBinary(["exec", "--yes", "hi"], h.env, h.workspace)).code).toBe(0);
    // No --yes and no terminal: the tools are offered from the known list, but a call's start is denied.
    fake.queue(toolCalls([{ name: "everything__echo", arguments: { message: "x" } }]), text("denied"));
    const before = fake.requests.length;
    const r = await runBinary(["exec", "--json", "echo"], h.env, h.workspace);
    expect(offered(fake.requests[before])).toContain("everything__echo");
    const done = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.method === "tool.completed")!.params;
    expect(done.ok).toBe(false);
    expect(starts(marker)).toBe(1);
  });

  test("a server whose variable is not set is noted on the first run, not on the next", async () => {
    const h = fakeHome(fake.url, serverToml("needs", { command: JS_RUNTIME, args: [EVERYTHING, "stdio"], env: ["SCV_TEST_UNSET_TOKEN"] }));
    fake.queue(text("one"), text("two"));
    const first = await runBinary(["exec", "--yes", "hi"], h.env, h.workspace);
    expect(first.stderr).toContain('MCP server "needs" is not connected: SCV_TEST_UNSET_TOKEN is not set');
    const second = await runBinary(["exec", "--yes", "hi"], h.env, h.workspace);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('MCP server "needs"');
  });
});
