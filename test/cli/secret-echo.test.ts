// A provider that echoes the key back (raw, percent-encoded, JSON-escaped, or quoting its end) never gets it
// printed: the compiled `scv exec`, in text and --json output.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary, runBinary } from "../fake/binary";
import { httpError } from "../fake/model-server";
import { startStdioServer } from "../fake/stdio-client";
import { keyEchoes } from "../fake/search-servers";

const KEY = "prov/AbC+dEf=gHi~jkl-MARK-123";
const fake = fakeModelForFile();

/** What must never be printed: every echoed form, the key's last 4 characters, and its JSON \u form. */
const forbidden = [...keyEchoes(KEY).map((e) => e.replace("key ending in ", "")), KEY.slice(-4), KEY.replace(/[^A-Za-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)];

for (const json of [false, true]) {
  test(`a 401 echoing the key in every form prints none of them (${json ? "--json" : "text"})`, async () => {
    const { env, workspace } = fakeHome(fake.url, `api_key_env = "FAKE_PROVIDER_KEY"\n`);
    const message = `Incorrect API key provided: ${keyEchoes(KEY).join("; ")}; escaped ${forbidden.at(-1)}`;
    fake.queue(httpError(401, { error: { message, type: "invalid_request_error", code: "invalid_api_key" } }));
    const proc = Bun.spawn([requireBinary(), "exec", ...(json ? ["--json"] : []), "hi"], {
      cwd: workspace,
      env: { ...env, FAKE_PROVIDER_KEY: KEY },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`); // the key was really sent
    const printed = out + err;
    expect(printed).toContain("Incorrect API key provided");
    for (const form of forbidden) expect(printed).not.toContain(form);
  });
}

// The key as encoders other than encodeURIComponent write it: every non-alphanumeric character encoded
// (`sk%2DSECRETMARK%2D123`), in upper- and lower-case hex, every character encoded, and a mix.
const DASH_KEY = "sk-SECRETMARK-123";
const HEADER_VALUE = "hdr-VALUE.secret-77";
const pctAll = (s: string, lower = false) => s.replace(/[^A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")[lower ? "toLowerCase" : "toUpperCase"]()}`);
const pctEvery = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join("");
const encodedEchoes = (s: string) => [pctAll(s), pctAll(s, true), pctEvery(s), pctAll(s).replace("%2D", "-")];
/** Every echoed form, and the first 7 characters of each (what a cut inside the echo would leave). */
const stillSecret = (printed: string) =>
  [DASH_KEY, HEADER_VALUE, ...encodedEchoes(DASH_KEY), ...encodedEchoes(HEADER_VALUE)]
    .flatMap((f) => [f, f.slice(0, 7)])
    .filter((f) => printed.includes(f));

function sessionFilesText(home: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(readFileSync(p, "utf8"));
    }
  };
  walk(join(home, "state", "sessions"));
  expect(out.length).toBeGreaterThan(0); // the turn was stored: what is checked exists
  return out.join("\n");
}

/** Every form within the first 400 characters; or (`long`) the first echo where a 400-character cut falls inside it. */
const echoMessage = (long = false) =>
  `${long ? "x".repeat(392) : "xxxxxxxxxxxxxxxxxxxxxxxx"} ${encodedEchoes(DASH_KEY).join(" ; ")} header ${encodedEchoes(HEADER_VALUE).join(" ; ")}`;

for (const status of [401, 403, 429, 500]) {
  test(`HTTP ${status} echoing the key percent-encoded in any mix reaches no output and no session file`, async () => {
    const { env, workspace, home } = fakeHome(fake.url, `api_key_env = "FAKE_PROVIDER_KEY"\n[providers.fake.headers]\nX-Extra = "${HEADER_VALUE}"\n`);
    for (const json of [false, true]) {
      fake.queue(httpError(status, { error: { message: echoMessage(json), type: "invalid_request_error", code: status === 401 ? "invalid_api_key" : null } }));
      const r = await runBinary(["exec", ...(json ? ["--json"] : []), "hi"], { ...env, FAKE_PROVIDER_KEY: DASH_KEY }, workspace);
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toContain("x".repeat(20));
      expect(stillSecret(r.stdout + r.stderr)).toEqual([]);
    }
    expect(stillSecret(sessionFilesText(home))).toEqual([]);
  }, 30_000);
}

test("a stream error echoing the encoded key, through scv server --stdio: stdout and the session file stay clean", async () => {
  const { env, workspace, home } = fakeHome(fake.url, `api_key_env = "FAKE_PROVIDER_KEY"\n[providers.fake.headers]\nX-Extra = "${HEADER_VALUE}"\n`);
  fake.queue({ kind: "mid_stream_error", text: "partial ", code: "server_error", message: echoMessage(true) });
  const s = startStdioServer({ ...env, FAKE_PROVIDER_KEY: DASH_KEY }, workspace);
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } });
  s.send({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: workspace } });
  const started = (await s.waitFor((m) => m.id === 2)).result;
  s.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: started.session_id, prompt: "hi" } });
  const ended = await s.waitFor((m) => m.method === "turn.ended");
  expect(ended.params.status).toBe("failed");
  s.proc.stdin.end();
  await s.proc.exited;
  expect(stillSecret(JSON.stringify(s.messages))).toEqual([]);
  expect(stillSecret(sessionFilesText(home))).toEqual([]);
}, 30_000);
