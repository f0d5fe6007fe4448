// The egress proxy's log is bounded and holds no secret: rotated at EGRESS_LOG_MAX_BYTES into one previous file
// (`scv sandbox log` reads both), and a command's credentials (URL user info, query tokens, -u, auth headers, key
// formats) never reach it. Through the real writer the proxy uses, and through a real listener of the proxy.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { appendEgressLog, EGRESS_LOG_MAX_BYTES, egressLogFile, egressSummary, readEgressLog, type EgressEntry } from "../../src/sandbox/egress-log";
import { openEgressListener } from "../../src/sandbox/egress-proxy";
import { egressRules } from "../../src/sandbox/egress-rules";
import { requireBinary } from "../fake/binary";

const root = mkdtempSync(join(tmpdir(), "scv-egress-log-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const entry = (i: number): EgressEntry => ({
  time: new Date(Date.UTC(2026, 11, 1) + i).toISOString(),
  action: i % 2 ? "allowed" : "refused",
  host: `host-${i}.example.org`,
  port: 443,
  via: "CONNECT",
  ...(i % 2 ? {} : { reason: `host-${i}.example.org:443 not in [sandbox.network] allow or its presets` }),
  session: "s-log-test",
  command: `npm install package-number-${i} --registry https://registry.example.org/`,
});

test("the log is rotated at its bound: two files of at most EGRESS_LOG_MAX_BYTES, read back in order", () => {
  const home = join(root, "rotate");
  const file = egressLogFile(home);
  const line = Buffer.byteLength(`${JSON.stringify(entry(0))}\n`);
  // Enough lines for two and a half files: without rotation the file would be 2.5 times the bound.
  const count = Math.ceil((2.5 * EGRESS_LOG_MAX_BYTES) / line);
  for (let i = 0; i < count; i++) appendEgressLog(file, entry(i));
  const current = statSync(file).size;
  const previous = statSync(`${file}.1`).size;
  expect(current).toBeLessThanOrEqual(EGRESS_LOG_MAX_BYTES);
  expect(previous).toBeLessThanOrEqual(EGRESS_LOG_MAX_BYTES);
  expect(previous).toBeGreaterThan(EGRESS_LOG_MAX_BYTES - 2 * line); // a file is rotated only when full
  expect(existsSync(`${file}.2`)).toBe(false); // one previous file, no more
  expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
  // `scv sandbox log` (readEgressLog) reads the previous file and the current one: the newest entries, in order.
  const read = readEgressLog(home);
  const lines = (f: string) => readFileSync(f, "utf8").split("\n").filter(Boolean).length;
  expect(read.length).toBe(lines(file) + lines(`${file}.1`));
  expect(read.length).toBeGreaterThan(EGRESS_LOG_MAX_BYTES / line); // more than one file's worth
  expect(read.at(-1)!.host).toBe(`host-${count - 1}.example.org`);
  const first = Number(read[0]!.host.match(/\d+/)![0]);
  expect(read.map((e) => e.host)).toEqual(Array.from({ length: read.length }, (_, i) => `host-${first + i}.example.org`));
  // --since keeps to the entries at or after it, across both files.
  const since = Date.parse(read[10]!.time);
  expect(readEgressLog(home, since).length).toBe(read.length - 10);
}, 60_000);

test("the web page's summary of a full log: the same counts as the whole read, the latest refusals newest first", () => {
  const home = join(root, "rotate");
  // A line of another shape (keys in another order) counts as well; a broken one does not.
  const file = egressLogFile(home);
  writeFileSync(file, `${readFileSync(file, "utf8")}{"action":"refused","time":"${new Date(Date.UTC(2026, 11, 2)).toISOString()}","host":"odd.example.org","port":80,"via":"GET"}\n{"time":"2026-12-0\n`);
  const all = readEgressLog(home);
  const refused = all.filter((e) => e.action === "refused");
  const summary = egressSummary(home, 0, 20);
  expect(summary.allowed).toBe(all.length - refused.length);
  expect(summary.refused).toBe(refused.length);
  expect(summary.latest.map((e) => e.host)).toEqual(refused.slice(-20).reverse().map((e) => e.host));
  expect(summary.latest[0]!.host).toBe("odd.example.org");
  const since = Date.parse(all[all.length - 30]!.time);
  expect(egressSummary(home, since, 5).refused).toBe(readEgressLog(home, since).filter((e) => e.action === "refused").length);
});

test("`scv sandbox log` lists the previous file's entries and the current file's", () => {
  const home = join(root, "cli");
  const file = egressLogFile(home);
  mkdirSync(join(home, "state"), { recursive: true });
  const now = Date.now();
  const at = (e: EgressEntry, ms: number) => `${JSON.stringify({ ...e, time: new Date(ms).toISOString() })}\n`;
  writeFileSync(`${file}.1`, at({ ...entry(0), host: "older.example.org" }, now - 60_000));
  writeFileSync(file, at({ ...entry(1), host: "newer.example.org" }, now - 1000));
  const r = Bun.spawnSync([requireBinary(), "sandbox", "log", "--since", "1h", "--json"], { env: { PATH: process.env.PATH!, HOME: root, SCV_HOME: home }, stdout: "pipe", stderr: "pipe" });
  expect(r.stderr.toString()).toBe("");
  expect(r.stdout.toString().trim().split("\n").map((l) => (JSON.parse(l) as EgressEntry).host)).toEqual(["older.example.org", "newer.example.org"]);
});

test("no secret of a command, a URL or a Host header is written to the log", () => {
  const file = join(root, "secrets", "log.jsonl");
  const secrets = ["hunter2pass", "s3cretQueryTok", "AbCdEf0123456789xyz", "pw4url", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "apiKeyValue77", "cookieVal99"];
  const command = [
    `curl -u alice:hunter2pass -H "Authorization: Bearer AbCdEf0123456789xyz" "https://bob:pw4url@evil.test/path/to?token=s3cretQueryTok#frag"`,
    `curl -H 'X-Api-Key: apiKeyValue77' -H "Cookie: sid=cookieVal99; other=1" https://evil.test/a`,
    `GITHUB_TOKEN=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 git push`,
  ].join(" && ");
  appendEgressLog(file, { time: new Date().toISOString(), action: "refused", host: "pw4url@evil.test", port: 443, via: "CONNECT", reason: "see https://x.test/?token=s3cretQueryTok", session: "s-1", command });
  const written = readFileSync(file, "utf8");
  for (const s of secrets) expect(written).not.toContain(s);
  const e = JSON.parse(written) as EgressEntry;
  // What stays is what a person needs to recognise the command: the program, the host and the path.
  expect(e.command).toStartWith("curl -u … -H");
  expect(e.command).toContain("https://evil.test/path/to");
  expect(e.host).toBe("evil.test");
  expect(e.reason).toBe("see https://x.test/");
  expect(e.command!.length).toBeLessThanOrEqual(200);
});

test("the proxy writes through the bounded writer: a full log is rotated by the next decision, which holds no query token", async () => {
  const home = join(root, "proxy");
  const file = egressLogFile(home);
  mkdirSync(join(home, "state"), { recursive: true });
  // A log 20 bytes short of its bound (the last line padded with spaces, which JSON allows).
  const filler = `${JSON.stringify(entry(0))}\n`;
  const full = filler.repeat(Math.floor(EGRESS_LOG_MAX_BYTES / Buffer.byteLength(filler)) - 1);
  writeFileSync(file, `${full}${JSON.stringify(entry(2)).padEnd(EGRESS_LOG_MAX_BYTES - 20 - Buffer.byteLength(full) - 1)}\n`);
  expect(statSync(file).size).toBe(EGRESS_LOG_MAX_BYTES - 20);
  const sock = join(root, "proxy.sock");
  const listener = openEgressListener(sock, { rules: egressRules({ allow: ["registry.test"], deny: [], presets: [], mode: "full", allow_private: false }), logFile: file, session: "s-proxy", command: "curl https://refused.test/x?access_token=tok3nInQuery" });
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      const c = net.connect(sock);
      let got = "";
      c.on("data", (d) => (got += d.toString()));
      c.on("end", () => resolve(got));
      c.on("error", reject);
      c.on("connect", () => c.write("CONNECT refused.test:443 HTTP/1.1\r\n\r\n"));
    });
    expect(answer).toStartWith("HTTP/1.1 403");
  } finally {
    listener.close();
  }
  expect(statSync(`${file}.1`).size).toBe(EGRESS_LOG_MAX_BYTES - 20);
  const written = readFileSync(file, "utf8");
  expect(written.trim().split("\n")).toHaveLength(1);
  expect(written).toContain('"host":"refused.test"');
  expect(written).toContain("curl https://refused.test/x");
  expect(written).not.toContain("tok3nInQuery");
});
