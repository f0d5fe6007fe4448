// Keys never reach a session file, `scv sessions show` or a search (red team finding 3), through the compiled
// binary: another profile's key and header value shown by `cat config.toml`, a GitHub token printed by bash, an
// AWS key and a PEM private key pasted into the prompt.
import { expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();

const OTHER_KEY = "other-profile-key-Zq81Xw7";
const HEADER = "header-secret-Vb42Lp9";
const GITHUB = `ghp_${"a1B2c3D4e5".repeat(4)}`;
const AWS = "AKIAIOSFODNN7EXAMPLE";
const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu\n-----END RSA PRIVATE KEY-----";
const ANTHROPIC = `sk-ant-api03-${"Xy9".repeat(10)}`;
const MCP_HEADER = "mcp-header-secret-Qw3Er5";
const BOUND = "bound-secret-value-Ty6Ui8";
const leaks = [OTHER_KEY, HEADER, GITHUB, AWS, "MIIEpAIBAAKCAQEA1c7", ANTHROPIC, MCP_HEADER, BOUND];

test("configured secrets of every profile and well-known key formats are scrubbed from sessions, show and search", async () => {
  const extra =
    `[tools]\nsecret_bindings = [{ source = "env:DEPLOY_TOKEN" }]\n` +
    `[providers.other]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key = "${OTHER_KEY}"\nheaders = { "X-Org" = "${HEADER}" }\n` +
    `[mcp.servers.remote]\nurl = "http://127.0.0.1:9/mcp"\nenabled = false\nheaders = { "Authorization" = "${MCP_HEADER}" }\n` +
    // Off: the sandbox hides $SCV_HOME from bash, and this test needs the config's text in the session to scrub.
    `[sandbox]\nmode = "off"\n`;
  const base = fakeHome(fake.url, extra);
  const { home, workspace } = base;
  const env = { ...base.env, DEPLOY_TOKEN: BOUND };
  fake.queue(
    toolCalls([{ name: "bash", arguments: { command: `cat "${join(home, "config.toml")}"; echo GITHUB_TOKEN=${GITHUB}; echo ${ANTHROPIC}; echo ${BOUND}` } }]),
    text(`I saw ${GITHUB} and ${OTHER_KEY}.`),
  );
  const prompt = `my aws key is ${AWS} and here is a key:\n${PEM}`;
  const r = await runBinary(["exec", "--yes", "--json", prompt], env, workspace);
  expect(r.code).toBe(0);
  const sid = JSON.parse(r.stdout.split("\n")[0]!).params.session_id;
  const stored = readFileSync(join(home, "state", "sessions", `${sid}.jsonl`), "utf8");
  expect(stored).toContain("[mcp.servers.remote]"); // the config really was shown to the model
  for (const leak of leaks) expect(stored).not.toContain(leak);
  expect(stored).toContain("-----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY-----");
  expect(readdirSync(join(home, "state", "sessions")).length).toBeGreaterThan(0);

  for (const args of [["sessions", "show", sid], ["sessions", "show", "--json", sid]]) {
    const shown = await runBinary(args, env, workspace);
    expect(shown.code).toBe(0);
    for (const leak of leaks) expect(shown.stdout).not.toContain(leak);
  }

  // A later session's search finds the turn, never the key.
  fake.queue(toolCalls([{ name: "session_search", arguments: { query: "aws key" } }]), text("found it"));
  const search = await runBinary(["exec", "--json", "search my sessions"], env, workspace);
  const completed = search.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.method === "tool.completed");
  expect(completed.params.output).toContain("my aws key is ***");
  for (const leak of leaks) expect(completed.params.output).not.toContain(leak);
}, 30_000);
