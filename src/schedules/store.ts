// The schedule store: $SCV_HOME/state/schedules/ (0700) with one 0600 file per schedule (`<id>.json`, written by
// whoever makes or changes it), the daemon's state of it (`<id>.state.json`, written only by the daemon) and the
// fires in flight (`fires/<fire>.json`), every write atomic. A file edited into nonsense is reported by name and
// field; the other schedules keep running.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "../digest";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../fs/private-file";
import { readBoundedTextIfExists } from "../fs/safe-read";
import { Fire, Schedule, ScheduleState } from "./schema";

export interface InvalidSchedule {
  file: string;
  error: string;
}

const MAX_FILE_BYTES = 1024 * 1024;

export function schedulesDir(scvHome: string): string {
  return join(scvHome, "state", "schedules");
}

export class ScheduleStore {
  readonly dir: string;
  readonly firesDir: string;

  constructor(scvHome: string) {
    this.dir = schedulesDir(scvHome);
    this.firesDir = join(this.dir, "fires");
  }

  private ensure() {
    ensurePrivateDir(this.dir);
    ensurePrivateDir(this.firesDir);
  }

  newId(): string {
    return `sch-${randomHex(4)}`;
  }

  /** Whether any schedule file is there (valid or not), without reading one. */
  any(): boolean {
    return this.names().length > 0;
  }

  /** Every schedule, in creation order, and the files that are not a valid schedule. */
  list(): { schedules: Schedule[]; invalid: InvalidSchedule[] } {
    const schedules: Schedule[] = [];
    const invalid: InvalidSchedule[] = [];
    for (const name of this.names()) {
      const file = join(this.dir, name);
      const parsed = readValid(file, Schedule, "schedule");
      if ("missing" in parsed) continue; // removed while listing
      if ("error" in parsed) invalid.push({ file, error: parsed.error });
      else if (`${parsed.value.id}.json` !== name) invalid.push({ file, error: `id: "${parsed.value.id}" does not match the file name` });
      else schedules.push(parsed.value);
    }
    return { schedules: schedules.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0)), invalid };
  }

  /** The schedule, undefined when there is none; throws with the field for a file that is not valid. */
  get(id: string): Schedule | undefined {
    if (!/^sch-[0-9a-f]{8}$/.test(id)) return undefined;
    const parsed = readValid(join(this.dir, `${id}.json`), Schedule, "schedule");
    if ("missing" in parsed) return undefined;
    if ("error" in parsed) throw new Error(`${join(this.dir, `${id}.json`)}: ${parsed.error}`);
    return parsed.value;
  }

  save(schedule: Schedule): void {
    this.ensure();
    writePrivateFileAtomic(join(this.dir, `${schedule.id}.json`), `${JSON.stringify(schedule, null, 2)}\n`);
  }

  /** Removes the schedule and its state; fires in flight finish and are reported as usual. */
  remove(id: string): boolean {
    const removed = tryUnlink(join(this.dir, `${id}.json`));
    tryUnlink(join(this.dir, `${id}.state.json`));
    return removed;
  }

  state(id: string): ScheduleState {
    const parsed = readValid(join(this.dir, `${id}.state.json`), ScheduleState, "schedule state");
    return "value" in parsed ? parsed.value : { id, fires: 0 };
  }

  saveState(state: ScheduleState): void {
    this.ensure();
    writePrivateFileAtomic(join(this.dir, `${state.id}.state.json`), JSON.stringify(state));
  }

  /** The fires in flight, oldest first. */
  fires(): Fire[] {
    let names: string[] = [];
    try {
      names = readdirSync(this.firesDir).filter((n) => n.endsWith(".json") && !n.startsWith("."));
    } catch {}
    const out: Fire[] = [];
    for (const name of names) {
      const parsed = readValid(join(this.firesDir, name), Fire, "fire record");
      if ("value" in parsed) out.push(parsed.value);
    }
    return out.sort((a, b) => (a.recorded < b.recorded ? -1 : 1));
  }

  saveFire(fire: Fire): void {
    this.ensure();
    writePrivateFileAtomic(join(this.firesDir, `${fire.id}.json`), JSON.stringify(fire));
  }

  removeFire(id: string): void {
    tryUnlink(join(this.firesDir, `${id}.json`));
  }

  private names(): string[] {
    try {
      return readdirSync(this.dir).filter((n) => /^sch-[^.]+\.json$/.test(n));
    } catch {
      return [];
    }
  }
}

type Parsed<T> = { value: T } | { error: string } | { missing: true };

function readValid<T>(file: string, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }, what: string): Parsed<T> {
  let text: string | undefined;
  try {
    text = readBoundedTextIfExists(file, { what, maxBytes: MAX_FILE_BYTES, followSymlink: false });
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (text === undefined) return { missing: true };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON (${(e as Error).message})` };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { value: parsed.data };
  return { error: parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(file)"}: ${i.message}`).join("; ") };
}
