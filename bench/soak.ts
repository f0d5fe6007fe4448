// Months in a day (issue 57; a bench, not a CI test): the compiled daemon (dist/scv daemon run) with the dir
// channel and the web page on, against the scripted model (test/fake/model-server.ts). Events, interleaved:
// chat messages from 20 senders (the owner's direct chat calls `read` and `bash` each turn; the 19 others get
// tool-free sessions), schedule fires (POST /schedules/<id>/run, answered in the owner's chat) and web page
// loads (GET /chat signed in). Every SAMPLE events it samples the daemon's RSS, open file descriptors, CPU time
// (user + system) and the size of $SCV_HOME, and prints them as a table and a small chart at the end.
// Full size: 10,000 messages, 1,000 fires, 200 page loads, sampled every 1,000 events. SOAK_SCALE scales every
// count (SOAK_SCALE=0.1: a few minutes); IN_FLIGHT bounds the messages not answered yet.
//   bun run build && SOAK_SCALE=0.1 bun bench/soak.ts
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChannelsConfig, type Config, SchedulesConfig } from "../src/config/schema";
import { daemonFetch } from "../src/daemon/client";
import { createSchedule } from "../src/schedules/create";
import { ScheduleStore } from "../src/schedules/store";
import { startFakeModel, text, toolCalls } from "../test/fake/model-server";
import { cleanupBridges, sendMessage } from "../test/channels/helpers";
import { get, signIn, startWebDaemon } from "../test/web/helpers";

const SCALE = Number(process.env.SOAK_SCALE ?? 1);
const MESSAGES = Math.round(10_000 * SCALE);
const FIRES = Math.round(1_000 * SCALE);
const PAGES = Math.round(200 * SCALE);
const SAMPLE = Math.max(1, Math.round(1_000 * SCALE));
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 20);
const SENDERS = 20;

let replies = 0;
const fake = await startFakeModel({
  respond: (body) => {
    const input = JSON.stringify(body.input ?? body.messages);
    const tools = (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
    const lastUser = input.lastIndexOf('"role":"user"');
    const lastTool = Math.max(input.lastIndexOf('"function_call_output"'), input.lastIndexOf('"role":"tool"'));
    if (tools.includes("bash") && lastUser > lastTool) {
      return toolCalls([
        { name: "read", arguments: { path: "notes.txt" } },
        { name: "bash", arguments: { command: "ls" } },
      ]);
    }
    return text(`reply ${++replies}: noted.`);
  },
});

interface Sample {
  events: number;
  messages: number;
  fires: number;
  pages: number;
  rssMiB: number;
  fds: number;
  cpuS: number;
  homeMiB: number;
  wallS: number;
}

const samples: Sample[] = [];
const began = performance.now();
let outSeen = 0;
const b = await startWebDaemon(fake.url, "auto_approve = true", "[schedules]\nmin_every_seconds = 1\n");
try {
  writeFileSync(join(b.workspace, "notes.txt"), "what the owner keeps asking about\n");
  const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ min_every_seconds: 1 }) } as Config;
  const schedule = createSchedule(new ScheduleStore(b.home), { prompt: "the daily summary", every: "24h" }, { config, owner: { kind: "chat", channel: "dir/default", conversation: "owner-1" }, madeBy: "soak" }).schedule;
  await daemonFetch(b.home, `/schedules/reload?id=${schedule.id}`, { method: "POST" });
  const auth = await signIn(b);
  const pid = b.daemon!.pid;
  const ticks = 100; // USER_HZ on Linux

  /** Takes what the channel sent (as a chat platform would), returning how many messages it found. */
  const drainOut = () => {
    let names: string[] = [];
    try {
      names = readdirSync(join(b.chat, "out")).filter((n) => !n.startsWith("."));
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      if (name.endsWith(".json")) n++;
      rmSync(join(b.chat, "out", name), { force: true });
    }
    return n;
  };
  const sample = (events: number, messages: number, fires: number, pages: number) => {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpu = (Number(f[11]) + Number(f[12])) / ticks;
    samples.push({ events, messages, fires, pages, rssMiB: rss, fds: readdirSync(`/proc/${pid}/fd`).length, cpuS: cpu, homeMiB: duBytes(b.home) / 2 ** 20, wallS: (performance.now() - began) / 1000 });
    const s = samples.at(-1)!;
    console.error(`  ${String(events).padStart(6)} events: RSS ${s.rssMiB.toFixed(1)} MiB, ${s.fds} fds, CPU ${s.cpuS.toFixed(1)} s, SCV_HOME ${s.homeMiB.toFixed(1)} MiB`);
  };

  let messages = 0;
  let fires = 0;
  let pages = 0;
  let expected = 0;
  sample(0, 0, 0, 0);
  const total = MESSAGES + FIRES + PAGES;
  for (let events = 1; events <= total; events++) {
    // Interleaved in proportion: fires and page loads spread evenly through the messages.
    const firesDue = Math.floor((events * FIRES) / total);
    const pagesDue = Math.floor((events * PAGES) / total);
    if (fires < firesDue) {
      for (;;) {
        const res = await daemonFetch(b.home, `/schedules/${schedule.id}/run`, { method: "POST" });
        if (res.ok) break;
        outSeen += drainOut(); // the last fire still runs: let it finish
        await Bun.sleep(20);
      }
      fires++;
      expected++;
    } else if (pages < pagesDue) {
      const res = await get(b, "/chat", auth);
      if (!res.ok) throw new Error(`GET /chat: HTTP ${res.status}`);
      await res.text();
      pages++;
    } else {
      const sender = messages % SENDERS === 0 ? "owner-1" : `sender-${messages % SENDERS}`;
      sendMessage(b, { from: sender, text: `message ${messages} from ${sender}: what changed today?` });
      messages++;
      expected++;
    }
    while (expected - outSeen > IN_FLIGHT) {
      outSeen += drainOut();
      if (expected - outSeen > IN_FLIGHT) await Bun.sleep(10);
    }
    if (events % SAMPLE === 0) sample(events, messages, fires, pages);
  }
  const deadline = Date.now() + 120_000;
  while (outSeen < expected && Date.now() < deadline) {
    outSeen += drainOut();
    await Bun.sleep(20);
  }
  if (outSeen < expected) console.error(`  ${expected - outSeen} answers still missing after 2 minutes`);
  if (samples.at(-1)!.events !== total) sample(total, messages, fires, pages);
} finally {
  await cleanupBridges();
  await fake.close();
}

const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`soak: ${MESSAGES} chat messages from ${SENDERS} senders (the owner's with read and bash calls), ${FIRES} schedule fires, ${PAGES} web page loads (SOAK_SCALE=${SCALE}); load average ${load}`);
console.log("| events | messages | fires | page loads | RSS MiB | open fds | CPU s | $SCV_HOME MiB | wall s |");
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const s of samples) {
  console.log(`| ${s.events} | ${s.messages} | ${s.fires} | ${s.pages} | ${s.rssMiB.toFixed(1)} | ${s.fds} | ${s.cpuS.toFixed(1)} | ${s.homeMiB.toFixed(1)} | ${s.wallS.toFixed(0)} |`);
}
const first = samples.find((s) => s.events >= SAMPLE) ?? samples[0]!;
const last = samples.at(-1)!;
console.log(`RSS after the first ${first.events} events ${first.rssMiB.toFixed(1)} MiB, at the end ${last.rssMiB.toFixed(1)} MiB: +${(last.rssMiB - first.rssMiB).toFixed(1)} MiB over ${last.events - first.events} events (target <= 5 MiB at full size); fds ${first.fds} -> ${last.fds}`);
console.log(`$SCV_HOME grew ${(last.homeMiB - samples[0]!.homeMiB).toFixed(1)} MiB: ${((1024 * (last.homeMiB - samples[0]!.homeMiB)) / Math.max(1, last.messages + last.fires)).toFixed(1)} KiB per message or fire`);
chart("RSS MiB", samples.map((s) => s.rssMiB));
chart("open fds", samples.map((s) => s.fds));
chart("$SCV_HOME MiB", samples.map((s) => s.homeMiB));

/** A one-line chart of the samples (▁ to █ between their minimum and maximum). */
function chart(name: string, xs: number[]): void {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const bars = "▁▂▃▄▅▆▇█";
  const line = xs.map((x) => bars[hi === lo ? 0 : Math.round(((x - lo) / (hi - lo)) * (bars.length - 1))]).join("");
  console.log(`${name.padEnd(14)} ${line}  ${lo.toFixed(1)} .. ${hi.toFixed(1)}`);
}

function duBytes(dir: string): number {
  let total = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const p = join(dir, name);
    try {
      const st = statSync(p);
      total += st.isDirectory() ? duBytes(p) : st.size;
    } catch {
      // removed while we looked
    }
  }
  return total;
}
