// The schedules line of `scv status`: how many are active or paused, the next fire in words, notices waiting.
import { loadConfig } from "../config/load";
import { inWords, fromNow, ownerTimeZone } from "./create";
import { scheduleRows } from "./manage";
import { countNotices } from "./notices";
import { shortPrompt } from "./runner";
import { ScheduleStore } from "./store";

export interface ScheduleSummary {
  active: number;
  paused: number;
  invalid: number;
  next: { id: string; at: string } | null;
  notices: number;
  line: string;
}

export function scheduleSummary(scvHome: string, env: NodeJS.ProcessEnv): ScheduleSummary {
  const store = new ScheduleStore(scvHome);
  const notices = countNotices(scvHome);
  // Nothing to say: skip loading the configuration (scv status stays as quick as before schedules).
  if (!store.any() && !notices) return { active: 0, paused: 0, invalid: 0, next: null, notices: 0, line: "schedules: none" };
  let config;
  try {
    config = loadConfig({ env }).config;
  } catch (e) {
    return { active: 0, paused: 0, invalid: 0, next: null, notices: 0, line: `schedules: not read (${(e as Error).message.split("\n")[0]})` };
  }
  const { rows, invalid } = scheduleRows(store, config);
  const upcoming = rows.filter((r) => r.next !== undefined).sort((a, b) => a.next! - b.next!);
  const paused = rows.filter((r) => r.schedule.paused).length;
  const first = upcoming[0];
  const parts = [`schedules: ${upcoming.length} active, ${paused} paused`];
  if (invalid.length) parts.push(`${invalid.length} not used (scv schedules list says why)`);
  if (first) parts.push(`next ${first.schedule.id} “${shortPrompt(first.schedule)}” ${inWords(first.next!, ownerTimeZone(config))}, ${fromNow(first.next!, Date.now())}`);
  if (notices) parts.push(`${notices} notice(s) waiting (scv schedules list shows them)`);
  return {
    active: upcoming.length,
    paused,
    invalid: invalid.length,
    next: first ? { id: first.schedule.id, at: new Date(first.next!).toISOString() } : null,
    notices,
    line: parts.join("; "),
  };
}
