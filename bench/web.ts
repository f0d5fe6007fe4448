// The web page's cost in the daemon: two real daemons (dist/scv daemon run), one with [web_ui] enabled and one
// without, idle side by side over the same window: the extra resident memory and CPU per idle minute the web
// server adds (targets +2 MiB, +5 ms CPU a minute), read from /proc. A second daemon without the web page runs
// beside them: the difference between the two identical ones is the noise floor of the figure. Then a page's time to first byte on
// loopback (signed in, median of ROUNDS), next to a bare Bun.serve "hello" on loopback in this process.
// Run with `bun run build && bun bench/web.ts` (WINDOW_SECONDS=…, ROUNDS=… to change; default 60 and 50).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BINARY = resolve(import.meta.dir, "../dist/scv");
const WINDOW_MS = Number(process.env.WINDOW_SECONDS ?? 60) * 1000;
const ROUNDS = Number(process.env.ROUNDS ?? 50);
const TICK = 100; // clock ticks a second (USER_HZ on Linux)

const root = mkdtempSync(join(tmpdir(), "scv-bench-web-"));
const daemons: Bun.Subprocess[] = [];

function home(name: string, web: boolean): { env: Record<string, string>; dir: string } {
  const dir = join(root, name);
  const scvHome = join(dir, "scv-home");
  mkdirSync(join(dir, "home"), { recursive: true });
  mkdirSync(scvHome, { recursive: true });
  // The model is never called while idle; the address only has to parse.
  writeFileSync(
    join(scvHome, "config.toml"),
    `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "fake-model"\n${web ? '[web_ui]\nenabled = true\nlisten = "127.0.0.1:0"\n' : ""}`,
  );
  return { dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), SCV_HOME: scvHome } };
}

async function start(name: string, web: boolean): Promise<{ pid: number; log: () => string; env: Record<string, string>; dir: string }> {
  const h = home(name, web);
  const proc = Bun.spawn([BINARY, "daemon", "run"], { cwd: h.dir, env: h.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  daemons.push(proc);
  let out = "";
  void (async () => {
    for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
  })();
  const deadline = Date.now() + 15_000;
  while (!out.includes("listening on")) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`the ${name} daemon did not start: ${out}`);
    await Bun.sleep(50);
  }
  return { pid: proc.pid, log: () => out, ...h };
}

/** Resident memory (MiB) and CPU time used so far (ms) of a process. */
function usage(pid: number): { rss: number; cpu: number } {
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const cpu = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK;
  return { rss, cpu };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function firstByte(url: string, headers: Record<string, string> = {}): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 5; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const reader = res.body!.getReader();
    await reader.read();
    const t = performance.now() - t0;
    await reader.cancel();
    if (i >= 5) times.push(t); // the first few warm up the connection and the JIT
  }
  return median(times);
}

try {
  const [off, on, twin] = await Promise.all([start("off", false), start("on", true), start("twin", false)]);
  // Let start-up settle (first reconcile pass, JIT policy change at 1 s) before the window.
  await Bun.sleep(5000);
  const before = { off: usage(off.pid), on: usage(on.pid), twin: usage(twin.pid) };
  await Bun.sleep(WINDOW_MS);
  const after = { off: usage(off.pid), on: usage(on.pid), twin: usage(twin.pid) };
  const perMinute = (cpu: number) => (cpu * 60_000) / WINDOW_MS;
  const cpuOff = perMinute(after.off.cpu - before.off.cpu);
  const cpuOn = perMinute(after.on.cpu - before.on.cpu);
  console.log(`idle window ${WINDOW_MS / 1000} s, both daemons side by side (CPU from /proc in ${1000 / TICK} ms ticks)`);
  const cpuTwin = perMinute(after.twin.cpu - before.twin.cpu);
  const offMean = (cpuOff + cpuTwin) / 2;
  const rssOff = (after.off.rss + after.twin.rss) / 2;
  console.log(`CPU per idle minute: web off ${cpuOff.toFixed(1)} and ${cpuTwin.toFixed(1)} ms (two identical daemons: the noise floor is ${Math.abs(cpuOff - cpuTwin).toFixed(1)} ms), web on ${cpuOn.toFixed(1)} ms: extra ${(cpuOn - offMean).toFixed(1)} ms over their mean (target +5)`);
  console.log(`resident memory: web off ${after.off.rss.toFixed(1)} and ${after.twin.rss.toFixed(1)} MiB, web on ${after.on.rss.toFixed(1)} MiB: extra ${(after.on.rss - rssOff).toFixed(1)} MiB (target +2)`);

  // A page's first byte, signed in as the browser would be.
  const base = /web page on (http:\/\/127\.0\.0\.1:\d+)/.exec(on.log())![1]!;
  const link = Bun.spawnSync([BINARY, "web"], { cwd: on.dir, env: on.env }).stdout.toString().trim();
  const signin = await fetch(link, { redirect: "manual" });
  const cookie = (signin.headers.get("set-cookie") ?? "").split(";")[0]!;
  // The page's script sends the page key with every load of a page's content (the cookie alone gets a shell).
  const key = /<meta name="scv-key" content="([^"]+)">/.exec(await signin.text())?.[1] ?? "";
  const bare = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello") });
  try {
    const hello = await firstByte(`http://127.0.0.1:${bare.port}/`);
    for (const page of ["/chat", "/schedules", "/usage?since=7d"]) {
      const t = await firstByte(`${base}${page}`, { cookie, "x-scv-key": key });
      console.log(`first byte of ${page}: median ${t.toFixed(2)} ms over ${ROUNDS} (a bare Bun.serve hello: ${hello.toFixed(2)} ms; ratio ${(t / hello).toFixed(1)}x)`);
    }
    const signInPage = await firstByte(`${base}/chat`);
    console.log(`first byte of the sign-in page (no cookie): median ${signInPage.toFixed(2)} ms`);
  } finally {
    bare.stop(true);
  }
  const afterPages = usage(on.pid);
  console.log(`resident memory of the web daemon after ${ROUNDS * 4} page loads: ${afterPages.rss.toFixed(1)} MiB`);
} finally {
  for (const d of daemons) d.kill("SIGTERM");
  await Promise.all(daemons.map((d) => d.exited));
  rmSync(root, { recursive: true, force: true });
}
