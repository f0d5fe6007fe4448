// edit, grep, glob, plan and images through the compiled binary (`scv exec`) against the scripted model.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { makePng } from "../fake/png";

const fake = fakeModelForFile();

const events = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l));
const numbered = (n: number, eol: string) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join(eol) + eol;

describe("edit", () => {
  test("one line of a 3,000-line CRLF file: the approval card shows only the hunk; the file is otherwise identical and keeps CRLF", async () => {
    const { env, workspace } = fakeHome(fake.url);
    const before = numbered(3000, "\r\n");
    writeFileSync(join(workspace, "big.txt"), before);
    const call = toolCalls([{ name: "edit", arguments: { path: "big.txt", edits: [{ old_text: "line 2000\n", new_text: "line two thousand\n" }] } }]);
    // Without --yes and no terminal the call is denied, but the approval card is in the events.
    fake.queue(call, text("not allowed"));
    const asked = await runBinary(["exec", "--json", "change line 2000"], env, workspace);
    const card = events(asked.stdout).find((e) => e.method === "approval.requested");
    expect(card.params.summary).toBe(
      ["edit big.txt +1 -1 lines:", "@@ -1997,7 +1997,7 @@", " line 1997", " line 1998", " line 1999", "-line 2000", "+line two thousand", " line 2001", " line 2002", " line 2003"].join("\n"),
    );
    expect(readFileSync(join(workspace, "big.txt"), "utf8")).toBe(before);

    fake.queue(call, text("done"));
    const r = await runBinary(["exec", "--yes", "change line 2000"], env, workspace);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("edit big.txt (+1 -1 lines)");
    expect(readFileSync(join(workspace, "big.txt"), "utf8")).toBe(before.replace("line 2000\r\n", "line two thousand\r\n"));
  });

  test("an ambiguous edit writes nothing and tells the model where the matches are", async () => {
    const { env, workspace } = fakeHome(fake.url);
    writeFileSync(join(workspace, "f.py"), "x = 1\ny = 2\nx = 1\n");
    fake.queue(toolCalls([{ name: "edit", arguments: { path: "f.py", edits: [{ old_text: "x = 1", new_text: "x = 3" }] } }]), text("ambiguous"));
    const r = await runBinary(["exec", "--json", "--yes", "fix x"], env, workspace);
    const done = events(r.stdout).find((e) => e.method === "tool.completed");
    expect(done.params.ok).toBe(false);
    expect(done.params.output).toContain("old_text matches 2 times in f.py (at lines 1, 3)");
    expect(readFileSync(join(workspace, "f.py"), "utf8")).toBe("x = 1\ny = 2\nx = 1\n");
  });
});

test("grep and glob run without approval and respect .gitignore", async () => {
  const { env, workspace } = fakeHome(fake.url);
  writeFileSync(join(workspace, ".gitignore"), "build/\n");
  mkdirSync(join(workspace, "src"));
  mkdirSync(join(workspace, "build"));
  writeFileSync(join(workspace, "src", "main.ts"), "export const answer = 42;\n");
  writeFileSync(join(workspace, "build", "main.js"), "export const answer = 42;\n");
  fake.queue(
    toolCalls([
      { name: "grep", arguments: { pattern: "answer = \\d+" } },
      { name: "glob", arguments: { pattern: "**/main.*" } },
    ]),
    text("found"),
  );
  // No --yes and no terminal: anything needing approval would be denied.
  const r = await runBinary(["exec", "--json", "find the answer"], env, workspace);
  expect(r.code).toBe(0);
  const ev = events(r.stdout);
  expect(ev.some((e) => e.method === "approval.requested")).toBe(false);
  const [grep, glob] = ev.filter((e) => e.method === "tool.completed");
  expect(grep.params.output).toBe("1 matching line in 1 file (2 searched)\nsrc/main.ts:1: export const answer = 42;\n[skipped: 1 ignored by .gitignore/.ignore]");
  expect(glob.params.output).toBe('1 file matches "**/main.*"\nsrc/main.ts\n[1 entry ignored by .gitignore/.ignore]');
  // The model got the same results.
  const outputs = fake.requests.at(-1)!.body.input.filter((i: any) => i.type === "function_call_output").map((i: any) => i.output);
  expect(outputs).toEqual([grep.params.output, glob.params.output]);
});

test("plan updates reach scv exec --json as plan.updated and survive a resume", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const items = [
    { text: "read the code", status: "done" },
    { text: "fix the bug", status: "in_progress" },
    { text: "run the tests", status: "pending" },
  ];
  fake.queue(toolCalls([{ name: "plan", arguments: { items } }]), text("planned"));
  const r = await runBinary(["exec", "--json", "plan it"], env, workspace);
  const ev = events(r.stdout);
  expect(ev.find((e) => e.method === "plan.updated").params.items).toEqual(items);
  expect(ev.some((e) => e.method === "approval.requested")).toBe(false);
  fake.queue(text("still here"));
  const again = await runBinary(["exec", "--continue", "--json", "what is the plan?"], env, workspace);
  expect(again.code).toBe(0);
  const stored = readFileSync(join(env.SCV_HOME!, "state", "sessions", `${ev[0].params.session_id}.jsonl`), "utf8");
  expect(stored).toContain(`"type":"plan"`);
});

describe("images", () => {
  const png = makePng(8, 6);
  for (const wire of ["responses", "chat"] as const) {
    test(`a read of a PNG reaches the model as an image part (${wire})`, async () => {
      const { env, workspace } = fakeHome(fake.url, `wire_api = "${wire}"\nimages = true\n`);
      writeFileSync(join(workspace, "shot.png"), png);
      fake.queue(toolCalls([{ name: "read", arguments: { path: "shot.png" } }]), text("a gradient"));
      const r = await runBinary(["exec", "--json", "look at shot.png"], env, workspace);
      expect(r.code).toBe(0);
      const body = fake.requests.at(-1)!.body;
      const url = `data:image/png;base64,${png.toString("base64")}`;
      if (wire === "responses") {
        const message = body.input.at(-1);
        expect(message.role).toBe("user");
        expect(message.content[1]).toEqual({ type: "input_image", image_url: url, detail: "auto" });
        expect(body.input.at(-2).type).toBe("function_call_output");
      } else {
        const message = body.messages.at(-1);
        expect(message.role).toBe("user");
        expect(message.content[1]).toEqual({ type: "image_url", image_url: { url } });
        expect(body.messages.at(-2).role).toBe("tool");
      }
      // The session keeps the path, not the bytes.
      const sid = events(r.stdout)[0].params.session_id;
      const stored = readFileSync(join(env.SCV_HOME!, "state", "sessions", `${sid}.jsonl`), "utf8");
      expect(stored).toContain(join(workspace, "shot.png"));
      expect(stored).not.toContain(png.toString("base64").slice(0, 40));
    });
  }

  test("scv exec --image attaches images to the prompt; an unknown model refuses them with the reason", async () => {
    const { env, workspace } = fakeHome(fake.url, "images = true\n");
    writeFileSync(join(workspace, "a.png"), png);
    writeFileSync(join(workspace, "b.png"), makePng(3, 3));
    fake.queue(text("two images"));
    const r = await runBinary(["exec", "-i", "a.png", "--image", "b.png", "what are these?"], env, workspace);
    expect(r.code).toBe(0);
    const user = fake.requests.at(-1)!.body.input.at(-1);
    expect(user.content.map((p: any) => p.type)).toEqual(["input_text", "input_image", "input_image"]);

    const plain = fakeHome(fake.url);
    writeFileSync(join(plain.workspace, "a.png"), png);
    const refused = await runBinary(["exec", "--image", "a.png", "what is this?"], plain.env, plain.workspace);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cannot attach images: model "fake-model" is not one SCV knows to take images; if it does, set images = true in [providers.fake]');
  });

  test("an image over the sending limit is downscaled; read by a model without images says why", async () => {
    const { env, workspace } = fakeHome(fake.url, "images = true\n");
    const big = makePng(1400, 1100, 0);
    expect(big.length).toBeGreaterThan(4 * 1024 * 1024);
    writeFileSync(join(workspace, "big.png"), big);
    fake.queue(toolCalls([{ name: "read", arguments: { path: "big.png" } }]), text("seen"));
    await runBinary(["exec", "--yes", "look"], env, workspace);
    const url: string = fake.requests.at(-1)!.body.input.at(-1).content[1].image_url;
    expect(url.startsWith("data:image/jpeg;base64,")).toBe(true);
    expect(Buffer.from(url.slice(23), "base64").length).toBeLessThan(4 * 1024 * 1024);

    const off = fakeHome(fake.url, "images = false\n");
    writeFileSync(join(off.workspace, "big.png"), big);
    fake.queue(toolCalls([{ name: "read", arguments: { path: "big.png" } }]), text("cannot see"));
    const r = await runBinary(["exec", "--json", "look"], off.env, off.workspace);
    const done = events(r.stdout).find((e) => e.method === "tool.completed");
    expect(done.params.output).toBe('big.png is an image (image/png), which read cannot show as text: images are off for provider profile "fake" (images = false in [providers.fake])');
  });
});

test("the first request's tool definitions stay within their byte budget", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(text("hi"));
  await runBinary(["exec", "hello"], env, workspace);
  const tools = fake.requests.at(-1)!.body.tools;
  const bytes = Buffer.byteLength(JSON.stringify(tools));
  console.log(`tool definitions: ${tools.length} tools, ${bytes} bytes (${tools.map((t: any) => t.name).join(", ")})`);
  expect(bytes).toBeLessThanOrEqual(TOOL_DEFINITION_BUDGET);
});

/**
 * Bytes of the first request's `tools` array in a fresh exec session with no agents or search configured: 9,675
 * for 10 tools, of which edit (1,191), grep (1,007), glob (593) and plan (630) joined read, write, bash, web_fetch,
 * session_search and memory, and bash's note on the command guard and its `secrets` parameter added 422. The
 * schedule tool (726, trimmed to what the model needs) makes 10,417 for 11, so the budget rose from 10,000 for it.
 * `clarify` and background commands (bash's `background`, and agent_wait/agent_status/agent_cancel now offered
 * for commands as well as agents, with shorter descriptions) make 12,186 for 15, skill_manage 12,957 for 16, and
 * the sandbox's `unsandboxed` and bash's `keep` 13,124, so the budget rose to 13,200.
 * A tool that grows its schema past this budget shows here first.
 */
const TOOL_DEFINITION_BUDGET = 13_200;
