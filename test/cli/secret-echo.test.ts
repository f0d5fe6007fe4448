// A provider that echoes the key back (raw, percent-encoded, JSON-escaped, or quoting its end) never gets it
// printed: the compiled `scv exec`, in text and --json output.
import { expect, test } from "bun:test";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { httpError } from "../fake/model-server";
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
