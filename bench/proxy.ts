// The sandbox's egress proxy (src/sandbox/egress-proxy.ts) accepting on a listening socket taken from another
// process (as it takes the one the launcher leaves in a command's namespace): 500 sequential and 50 concurrent CONNECTs to a
// loopback HTTP server, each then one GET through the tunnel, against the same GET made directly. Reports
// failures, the added latency per request (median and p95) and the RSS of the process hosting the proxy.
// Then the cost per sandboxed command of the network setup (every command when `[sandbox.network]` is a
// table): `true` through the bash tool of the compiled binary, sandboxed with and without the table (runner's
// duration_ms per call). Only loopback traffic; the proxy resolves the server's name from a test hosts file.
// Run: bun run build && bun bench/proxy.ts
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { openEgressListener } from "../src/sandbox/egress-proxy";
import { fakeHome, removeFakeHomes, requireBinary } from "../test/fake/binary";
import { startFakeModel, text, toolCalls } from "../test/fake/model-server";
import { median } from "./bare";
import { egressRules } from "../src/sandbox/egress-rules";

const SEQUENTIAL = Number(process.env.SEQUENTIAL ?? 500);
const CONCURRENT = Number(process.env.CONCURRENT ?? 50);
const dir = mkdtempSync(join("/var/tmp", "scv-bench-proxy-"));
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok\n") });
const port = server.port as number;
writeFileSync(join(dir, "hosts"), "127.0.0.1 registry.test\n");
const rssBefore = process.memoryUsage().rss;
const listener = openEgressListener(join(dir, "egress.sock"), {
  rules: egressRules({ allow: ["registry.test", `127.0.0.1:${port}`], deny: [], presets: [], mode: "full", allow_private: true, hosts_file: join(dir, "hosts") }),
  logFile: join(dir, "log.jsonl"),
});
// A stand-in for the sandboxed command: it holds a listening socket at fd 1023, as the launcher leaves it, and the
// proxy takes it with pidfd_getfd and accepts on it, as for a real command.
const holder = Bun.spawn(["python3", "-c", "import socket,os,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(512)\nos.dup2(s.fileno(),1023)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(3600)"], { stdout: "pipe", stderr: "inherit" });
const reader = holder.stdout.getReader();
const proxyPort = Number(new TextDecoder().decode((await reader.read()).value).trim());
listener.adopt(holder.pid, 1023);
for (let i = 0; i < 100; i++) {
  if (await reachable(proxyPort)) break;
  await Bun.sleep(50);
}

function reachable(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(p, "127.0.0.1");
    c.on("connect", () => (c.destroy(), resolve(true)));
    c.on("error", () => resolve(false));
  });
}

/** One GET, directly or through CONNECT on the proxy; resolves with the milliseconds taken, rejects on failure. */
function once(viaProxy: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const c = net.connect(viaProxy ? proxyPort : port, "127.0.0.1");
    let got = "";
    let tunnelled = !viaProxy;
    const get = "GET / HTTP/1.1\r\nHost: registry.test\r\nConnection: close\r\n\r\n";
    c.on("connect", () => c.write(viaProxy ? `CONNECT registry.test:${port} HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n` : get));
    c.on("data", (d) => {
      got += d.toString();
      if (!tunnelled && got.includes("\r\n\r\n")) {
        if (!got.startsWith("HTTP/1.1 200")) return reject(new Error(got.split("\r\n")[0]));
        tunnelled = true;
        got = "";
        c.write(get);
      }
    });
    c.on("end", () => (got.includes("\r\n\r\nok") ? resolve(performance.now() - began) : reject(new Error(`short answer: ${got.slice(0, 80)}`))));
    c.on("error", reject);
  });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
async function sequential(viaProxy: boolean) {
  const times: number[] = [];
  let failures = 0;
  for (let i = 0; i < SEQUENTIAL; i++) await once(viaProxy).then((t) => times.push(t), () => failures++);
  return { times, failures };
}
async function concurrent(viaProxy: boolean) {
  const began = performance.now();
  const r = await Promise.allSettled(Array.from({ length: CONCURRENT }, () => once(viaProxy)));
  return { wallMs: performance.now() - began, failures: r.filter((x) => x.status === "rejected").length, times: r.flatMap((x) => (x.status === "fulfilled" ? [x.value] : [])) };
}

await sequential(true); // warm both paths
const direct = await sequential(false);
const proxied = await sequential(true);
let peak = process.memoryUsage().rss;
const cDirect = await concurrent(false);
const cProxied = await concurrent(true);
peak = Math.max(peak, process.memoryUsage().rss);
const f = (n: number) => n.toFixed(2);
console.log(`sequential ${SEQUENTIAL}: direct median ${f(pct(direct.times, 0.5))} ms p95 ${f(pct(direct.times, 0.95))} ms (${direct.failures} failures); through the proxy CONNECT median ${f(pct(proxied.times, 0.5))} ms p95 ${f(pct(proxied.times, 0.95))} ms (${proxied.failures} failures); added median ${f(pct(proxied.times, 0.5) - pct(direct.times, 0.5))} ms`);
console.log(`concurrent ${CONCURRENT}: direct ${f(cDirect.wallMs)} ms wall (${cDirect.failures} failures); through the proxy ${f(cProxied.wallMs)} ms wall, slowest ${f(Math.max(...cProxied.times))} ms (${cProxied.failures} failures)`);
console.log(`RSS of the process hosting the proxy: ${f(rssBefore / 2 ** 20)} MiB before the listener, ${f(peak / 2 ** 20)} MiB peak (no other process: the proxy accepts on the socket taken from the command)`);
holder.kill();
listener.close();
server.stop(true);

// The network setup's cost per command, through the compiled binary.
const CALLS = Number(process.env.BENCH_CALLS ?? 15);
const fake = await startFakeModel();
async function session(table: boolean): Promise<number[]> {
  const { env, workspace } = fakeHome(fake.url, `[tools]\nmax_steps = ${CALLS + 5}\n${table ? '[sandbox.network]\nallow = ["registry.test"]\n' : ""}`);
  for (let i = 0; i < CALLS; i++) fake.queue(toolCalls([{ name: "bash", arguments: { command: "true" } }]));
  fake.queue(text("done"));
  const p = Bun.spawn([requireBinary(), "exec", "--json", "--yes", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  const done = out.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.method === "tool.completed");
  if (done.length !== CALLS || done.some((e) => !e.params.ok)) throw new Error(`expected ${CALLS} ok calls, got ${JSON.stringify(done.map((e) => e.params.output))}`);
  return done.map((e) => e.params.duration_ms as number);
}
// npm install of one package from a loopback registry stand-in: sandboxed through the proxy (the registry named
// registry.test by the test resolver) against unsandboxed ([sandbox] mode = "off", the registry by address).
const pkgDir = join(dir, "pkg", "package");
mkdirSync(pkgDir, { recursive: true });
writeFileSync(join(pkgDir, "package.json"), JSON.stringify({ name: "tiny-odd", version: "1.0.0", main: "index.js" }));
writeFileSync(join(pkgDir, "index.js"), "module.exports = (n) => n % 2 === 1;\n");
const tgz = join(dir, "tiny-odd-1.0.0.tgz");
Bun.spawnSync(["tar", "czf", tgz, "-C", join(dir, "pkg"), "package"]);
const shasum = new Bun.CryptoHasher("sha1").update(readFileSync(tgz)).digest("hex");
const registry = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(r) {
    const path = new URL(r.url).pathname;
    if (path === "/tiny-odd") return Response.json({ name: "tiny-odd", "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": { name: "tiny-odd", version: "1.0.0", dist: { tarball: `http://${r.headers.get("host")}/tiny-odd/-/tiny-odd-1.0.0.tgz`, shasum } } } });
    return new Response(Bun.file(tgz));
  },
});
const INSTALLS = Number(process.env.BENCH_INSTALLS ?? 4);
async function installs(sandboxed: boolean): Promise<number[]> {
  const rp = registry.port as number;
  const extra = sandboxed
    ? `[sandbox.network]\nallow = ["registry.test", "127.0.0.1:${rp}"]\nallow_private = true\nhosts_file = "${join(dir, "hosts-npm")}"\n`
    : '[sandbox]\nmode = "off"\n';
  writeFileSync(join(dir, "hosts-npm"), "127.0.0.1 registry.test\n");
  const { env, workspace } = fakeHome(fake.url, `[tools]\nmax_steps = ${INSTALLS + 5}\n${extra}`);
  const url = sandboxed ? `http://registry.test:${rp}/` : `http://127.0.0.1:${rp}/`;
  for (let i = 0; i < INSTALLS; i++) {
    fake.queue(toolCalls([{ name: "bash", arguments: { command: `rm -rf node_modules package-lock.json package.json; npm install --no-audit --no-fund --cache "$(mktemp -d)" --registry ${url} tiny-odd >/dev/null && test -f node_modules/tiny-odd/index.js` } }]));
  }
  fake.queue(text("done"));
  const p = Bun.spawn([requireBinary(), "exec", "--json", "--yes", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  const done = out.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.method === "tool.completed");
  if (done.length !== INSTALLS || done.some((e) => !e.params.ok)) throw new Error(`npm installs failed: ${JSON.stringify(done.map((e) => e.params.output))}`);
  return done.map((e) => e.params.duration_ms as number);
}

try {
  await session(true);
  const without: number[] = [];
  const withTable: number[] = [];
  for (let r = 0; r < 2; r++) {
    without.push(...(await session(false)));
    withTable.push(...(await session(true)));
  }
  const npmOff: number[] = [];
  const npmProxy: number[] = [];
  for (let r = 0; r < 2; r++) {
    npmOff.push(...(await installs(false)));
    npmProxy.push(...(await installs(true)));
  }
  const [a, b] = [median(npmOff), median(npmProxy)];
  console.log(`npm install of one package from a loopback registry, ${INSTALLS} x 2 sessions each: unsandboxed ${a.toFixed(0)} ms, sandboxed through the proxy ${b.toFixed(0)} ms (${(b / a).toFixed(2)}x; target within 1.2x ${b / a <= 1.2 ? "met" : "MISSED"})`);
  console.log(`bash \`true\` sandboxed, ${CALLS} calls x 2 sessions each: no network ${median(without).toFixed(1)} ms, [sandbox.network] table (loopback up, proxy socket taken) ${median(withTable).toFixed(1)} ms per call`);
} finally {
  await fake.close();
  registry.stop(true);
  removeFakeHomes();
  rmSync(dir, { recursive: true, force: true });
}
