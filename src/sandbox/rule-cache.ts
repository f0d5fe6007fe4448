// The command's Landlock rules as planned (landlock.ts planCommandRules), kept between the commands of a process:
// the plan walks down to every hidden path, listing each folder on the way (about a millisecond with the default
// hidden paths), and it changes only when one of those folders or one of the places the rules name changes. Each
// use checks that: the listed folders' modification times and what each named place is (missing, file, folder).
import { lstatSync } from "node:fs";
import { type CommandRules, planCommandRules, type RulePlan } from "./landlock";

const KEEP = 16;
const kept = new Map<string, { plan: RulePlan; signature: string }>();

/** planCommandRules(abi, o), from the last plan for the same inputs while nothing it read has changed. */
export function commandRules(abi: number, o: CommandRules): RulePlan {
  const key = JSON.stringify([abi, o]);
  const hit = kept.get(key);
  if (hit && signatureOf(hit.plan, o) === hit.signature) return hit.plan;
  const plan = planCommandRules(abi, o);
  if (kept.size >= KEEP) kept.delete(kept.keys().next().value!);
  kept.set(key, { plan, signature: signatureOf(plan, o) });
  return plan;
}

function signatureOf(plan: RulePlan, o: CommandRules): string {
  const parts: string[] = [];
  for (const dir of plan.listed) parts.push(stamp(dir, true));
  for (const place of [o.tmp, ...o.writable, ...(o.devShm ? ["/dev/shm"] : [])]) parts.push(stamp(place, false));
  return parts.join("|");
}

function stamp(path: string, withTime: boolean): string {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) return "-";
    const kind = st.isDirectory() ? "d" : st.isSymbolicLink() ? "l" : "f";
    return withTime ? `${kind}${st.ino}:${st.mtimeMs}` : `${kind}${st.ino}`;
  } catch {
    return "-";
  }
}
