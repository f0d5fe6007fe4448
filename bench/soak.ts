// Months in a day (issue 57; a bench, not a CI test): the compiled daemon (dist/scv daemon run) with the dir
// channel and the web page on, against the scripted model (test/fake/model-server.ts). Events, interleaved:
// chat messages from 20 senders (the owner's direct chat calls `read` and `bash` each turn; the 19 others get
// tool-free sessions), schedule fires (POST /schedules/<id>/run, answered in the owner's chat) and web page
// loads (GET /chat signed in). Every SAMPLE events it samples the daemon's RSS, open file descriptors, CPU time
// (user + system) and the size of $SCV_HOME, and prints them as a table and a small chart at the end.
// Full size: 10,000 messages, 1,000 fires, 200 page loads, sampled every 1,000 events. SOAK_SCALE scales every
// count (SOAK_SCALE=0.1: a few minutes); IN_FLIGHT bounds the messages not answered yet.
// Time is compressed too: a month of chat in ~15 minutes is ~3,000x, so the daemon's hour before it closes an idle
// conversation's session (`session_idle_seconds`, default 3600) is about a second here: the soak runs with
// SOAK_IDLE=1 (seconds; the smallest the setting takes). With the default every one of the 20 conversations keeps
// its session, and its whole history, open for the whole run, which a month of real use never does. After the
// last event the daemon idles SOAK_SETTLE seconds (default 20) and is sampled once more (the row after the last).
//   bun run build && SOAK_SCALE=0.1 bun bench/soak.ts
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChannelsConfig, type Config, SchedulesConfig } from "../src/config/schema";
import { daemonFetch } from "../src/daemon/client";
import { createSchedule } from "../src/schedules/create";
import { ScheduleStore } from "../src/schedules/store";
import { startFakeModel, text, toolCalls } from "../test/fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, startDaemon, waitFor } from "../test/channels/helpers";
import { get, signIn } from "../test/web/helpers";

const SCALE = Number(process.env.SOAK_SCALE ?? 1);
const MESSAGES = Math.round(10_000 * SCALE);
const FIRES = Math.round(1_000 * SCALE);
const PAGES = Math.round(200 * SCALE);
const SAMPLE = Math.max(1, Math.round(1_000 * SCALE));
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 20);
const SENDERS = 20;
const IDLE = Number(process.env.SOAK_IDLE ?? 1);
const SETTLE = Number(process.env.SOAK_SETTLE ?? 20);

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
/** Where the sample taken after the daemon idled is (after the last event's). */
let settled = -1;
const began = performance.now();
// Twenty people writing as fast as the model answers: the per-sender rate (5 a minute) would drop most of it.
const b = makeBridge(fake.url, `sender_messages_per_minute = 600\nsession_idle_seconds = ${IDLE}`);
appendFileSync(join(b.home, "config.toml"), `\n[web_ui]\nenabled = true\nlisten = "127.0.0.1:0"\n\n[schedules]\nmin_every_seconds = 1\n`);
await startDaemon(b);
await waitFor(() => /web page on (http:\/\/127\.0\.0\.1:\d+)/.test(b.logText()), 10_000, "the web page");
const base = /web page on (http:\/\/127\.0\.0\.1:\d+)/.exec(b.logText())![1]!;
const web = Object.assign(b, { base, host: base.slice("http://".length) });
try {
  writeFileSync(join(b.workspace, "notes.txt"), "what the owner keeps asking about\n");
  const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ min_every_seconds: 1 }) } as Config;
  const schedule = createSchedule(new ScheduleStore(b.home), { prompt: "the daily summary", every: "24h" }, { config, owner: { kind: "chat", channel: "dir/default", conversation: "owner-1" }, madeBy: "soak" }).schedule;
  await daemonFetch(b.home, `/schedules/reload?id=${schedule.id}`, { method: "POST" });
  const auth = await signIn(web);
  const pid = b.daemon!.pid;
  const ticks = 100; // USER_HZ on Linux

  /** Takes what the channel sent (as a chat platform would): answers to messages, and unprompted fire reports. */
  const pending = new Set<string>();
  let unprompted = 0;
  const drainOut = () => {
    let names: string[] = [];
    try {
      names = readdirSync(join(b.chat, "out")).filter((n) => !n.startsWith("."));
    } catch {
      return;
    }
    for (const name of names) {
      const file = join(b.chat, "out", name);
      if (name.endsWith(".json")) {
        try {
          const m = JSON.parse(readFileSync(file, "utf8")) as { in_reply_to?: string };
          if (m.in_reply_to) pending.delete(m.in_reply_to);
          else unprompted++;
        } catch {
          continue; // being written: the next look takes it
        }
      }
      rmSync(file, { force: true });
    }
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
  sample(0, 0, 0, 0);
  const total = MESSAGES + FIRES + PAGES;
  for (let events = 0; events < total; ) {
    // Interleaved in proportion: fires and page loads spread evenly through the messages. A fire while the last
    // one still runs is refused (409): it is tried again at the next event.
    const rest = messages >= MESSAGES; // the messages are all out: what is left is due now
    const firesDue = rest ? FIRES : Math.floor(((events + 1) * FIRES) / total);
    const pagesDue = rest ? PAGES : Math.floor(((events + 1) * PAGES) / total);
    let fired = false;
    if (fires < firesDue) {
      const res = await daemonFetch(b.home, `/schedules/${schedule.id}/run`, { method: "POST", timeoutMs: 60_000 });
      await res.text();
      if (res.ok) {
        fires++;
        events++;
        fired = true;
      }
    }
    if (!fired && pages < pagesDue) {
      const res = await get(web, "/chat", auth);
      if (!res.ok) throw new Error(`GET /chat: HTTP ${res.status}`);
      await res.text();
      pages++;
      events++;
    } else if (!fired && messages < MESSAGES) {
      const sender = messages % SENDERS === 0 ? "owner-1" : `sender-${messages % SENDERS}`;
      pending.add(sendMessage(b, { from: sender, text: `message ${messages} from ${sender}: what changed today?` }));
      messages++;
      events++;
    } else if (!fired) await Bun.sleep(20); // only fires left, the last still running
    drainOut();
    const waitingSince = Date.now();
    let told = false;
    while (pending.size > IN_FLIGHT) {
      await Bun.sleep(10);
      drainOut();
      if (!told && Date.now() - waitingSince > 15_000) {
        told = true;
        console.error(`  waiting 15 s for ${pending.size} answers (${[...pending].slice(0, 5).join(", ")}…); the daemon's log ends:\n${b.logText().slice(-1500)}`);
      }
    }
    if (events % SAMPLE === 0 && samples.at(-1)!.events !== events) sample(events, messages, fires, pages);
  }
  const deadline = Date.now() + 120_000;
  while ((pending.size || unprompted < fires) && Date.now() < deadline) {
    await Bun.sleep(20);
    drainOut();
  }
  if (pending.size || unprompted < fires) console.error(`  still missing after 2 minutes: ${pending.size} answers, ${fires - unprompted} fire reports`);
  if (samples.at(-1)!.events !== total) sample(total, messages, fires, pages);
  settled = samples.length;
  await Bun.sleep(SETTLE * 1000);
  sample(total, messages, fires, pages);
} finally {
  await cleanupBridges();
  await fake.close();
}

const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`soak: ${MESSAGES} chat messages from ${SENDERS} senders (the owner's with read and bash calls), ${FIRES} schedule fires, ${PAGES} web page loads (SOAK_SCALE=${SCALE}, session_idle_seconds = ${IDLE}); load average ${load}`);
console.log("| events | messages | fires | page loads | RSS MiB | open fds | CPU s | $SCV_HOME MiB | wall s |");
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const [i, s] of samples.entries()) {
  console.log(`| ${i === settled ? `${s.events}, idle ${SETTLE} s` : s.events} | ${s.messages} | ${s.fires} | ${s.pages} | ${s.rssMiB.toFixed(1)} | ${s.fds} | ${s.cpuS.toFixed(1)} | ${s.homeMiB.toFixed(1)} | ${s.wallS.toFixed(0)} |`);
}
const first = samples.find((s) => s.events >= SAMPLE) ?? samples[0]!;
const last = samples[settled - 1] ?? samples.at(-1)!;
console.log(`RSS after the first ${first.events} events ${first.rssMiB.toFixed(1)} MiB, at the end ${last.rssMiB.toFixed(1)} MiB: +${(last.rssMiB - first.rssMiB).toFixed(1)} MiB over ${last.events - first.events} events (target <= 5 MiB at full size); fds ${first.fds} -> ${last.fds}${settled > 0 ? `; after ${SETTLE} s idle RSS ${samples[settled]!.rssMiB.toFixed(1)} MiB, ${samples[settled]!.fds} fds` : ""}`);
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
