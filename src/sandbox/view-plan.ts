// The command's private view of the file system as a list of steps, decided before anything is mounted: the
// launcher applies them to itself (mounts.ts applyView) and the direct start turns them into system calls that its
// PID 1 makes (direct.ts). Everything read-only, then the private temporary directory at /tmp and a private
// /dev/shm, the workspace and the user's writable roots writable (reached through a detached copy taken before
// /tmp was covered, since they may lie under it), `.git`/`.scv` read-only again, a home inside a writable place
// sealed at its top, hidden directories covered by an empty inaccessible tmpfs and hidden files (sockets too) by
// /dev/null.
import { lstatSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { exists, under } from "./paths";
import type { SandboxPolicy } from "./policy";
import { MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_RDONLY } from "./sys";

export type ViewStep =
  /** Every mount read-only, recursively (mount_setattr on /). */
  | { kind: "readonly-root" }
  /** Keeps a handle on `path` as it is now (`hold` numbers them from 0), for a bind-held after /tmp is covered. */
  | { kind: "hold"; path: string; hold: number }
  /** `source` shown at `target`; `mayBeGone`: a target missing in the view needs nothing. */
  | { kind: "bind"; source: string; target: string; writable: boolean; mayBeGone?: boolean }
  /** A held path shown, writable, at `target` (itself). */
  | { kind: "bind-held"; hold: number; target: string }
  | { kind: "tmpfs"; target: string; flags: number; data: string; mayBeGone?: boolean }
  /** A folder made in the view (one already there is fine). */
  | { kind: "mkdir"; path: string };

export interface ViewPlan {
  steps: ViewStep[];
  /** The hidden paths the view covers (or that are not there at all): Landlock need not exclude them. */
  covered: Set<string>;
}

/** The steps for `policy` with `writable` (the workspace in workspace-write mode, and the user's roots). */
export function planView(policy: SandboxPolicy, writable: readonly string[]): ViewPlan {
  const steps: ViewStep[] = [{ kind: "readonly-root" }];
  const held = writable.filter(exists).map((path, hold) => ({ path, hold }));
  for (const h of held) steps.push({ kind: "hold", ...h });
  steps.push({ kind: "bind", source: policy.tmpdir, target: "/tmp", writable: true });
  if (exists("/dev/shm")) steps.push({ kind: "tmpfs", target: "/dev/shm", flags: MS_NOSUID | MS_NODEV, data: "mode=1777" });
  for (const { path, hold } of held) {
    // A writable place under /tmp is made again in the private /tmp, each folder on the way.
    if (under(path, "/tmp") && path !== "/tmp") {
      const chain: string[] = [];
      for (let p = path; p !== "/tmp"; p = dirname(p)) chain.unshift(p);
      for (const p of chain) steps.push({ kind: "mkdir", path: p });
    }
    steps.push({ kind: "bind-held", hold, target: path });
  }
  for (const p of policy.protect) if (exists(p)) steps.push({ kind: "bind", source: p, target: p, writable: false });
  for (const home of policy.sealed) steps.push(...sealHome(home, policy.hidden));
  const covered = new Set<string>();
  for (const p of policy.hidden) {
    const step = hide(p);
    if (step === "none") continue;
    covered.add(p);
    if (step) steps.push(step);
  }
  return { steps, covered };
}

/**
 * A home inside a writable place: read-only as a whole (no new start-up file at its top), then each entry that
 * is not a dot entry writable again (a symlink is left as it is: binding it would bind what it points to).
 */
function sealHome(home: string, hidden: readonly string[]): ViewStep[] {
  if (!exists(home)) return [];
  const steps: ViewStep[] = [{ kind: "bind", source: home, target: home, writable: false }];
  let names: string[] = [];
  try {
    names = readdirSync(home);
  } catch {
    return steps;
  }
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const path = join(home, name);
    if (hidden.some((h) => under(path, h) || under(h, path))) continue;
    try {
      const st = lstatSync(path);
      if (st.isDirectory() || st.isFile()) steps.push({ kind: "bind", source: path, target: path, writable: true, mayBeGone: true });
    } catch {
      // gone meanwhile
    }
  }
  return steps;
}

/**
 * A hidden directory shows an empty read-only tmpfs nobody may enter; a hidden file (or socket) shows /dev/null.
 * undefined: not there at all (nothing to reach); "none": a symlink, left to Landlock (what it points to is
 * listed on its own). A path under the host's /tmp may be gone in the view (the private /tmp covers it).
 */
function hide(path: string): ViewStep | undefined | "none" {
  let st;
  try {
    st = lstatSync(path, { throwIfNoEntry: false }); // most hidden paths are missing: no exception for each
  } catch {
    return undefined;
  }
  if (!st) return undefined;
  if (st.isSymbolicLink()) return "none";
  if (st.isDirectory()) return { kind: "tmpfs", target: path, flags: MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, data: "size=4k,mode=000", mayBeGone: true };
  return { kind: "bind", source: "/dev/null", target: path, writable: false, mayBeGone: true };
}
