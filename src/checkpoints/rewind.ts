// Rewind, undo and redo over a session's checkpoint log: which recorded state each means, what restoring it
// would change (a plan to show and confirm), and the restore itself, logged so undo and redo know where they are.
import { lastRecorded, turnPoints, undoStack } from "./log";
import { snapshot, stateOf } from "./recorder";
import { applyRestore, planRestore, type RestorePlan, type RestoreResult, RestoreUnavailableError, targetState } from "./restore";
import type { CheckpointStore } from "./store";
import { checkTree, type WorkspaceState, writeTree } from "./tree";

/** `turn`: keep that turn's changes and undo every later turn's (`t0`: before the first turn); `undo`/`redo`: the last turn's files. */
export type RewindTarget = { turn: string } | { undo: true } | { redo: true };

export interface RewindSetup {
  store: CheckpointStore;
  sessionId: string;
  workspace: string;
  maxFileBytes: number;
}

export interface RewindPreview {
  /** The plan's identity: the same only when a plan made again names the same files, as they are now, to the same ends. */
  id: string;
  /** What is restored, in words (`the files as they were after t1`). */
  describes: string;
  root: string;
  plan: RestorePlan;
  undo?: string;
  redo?: string;
  toTurn?: string;
}

/** A turn a rewind can go back to, as a list shows it. */
export interface RewindPoint {
  turn: string;
  /** Whether its files can be restored; `reason` says why not. */
  available: boolean;
  reason?: string;
}

export function turnNumber(turn: string): number {
  const m = /^t(\d+)$/.exec(turn);
  return m ? Number(m[1]) : Number.NaN;
}

/** Which turns' file states can be restored, and why a point is unavailable (a missing or damaged object). */
export function rewindPoints(setup: RewindSetup): RewindPoint[] {
  const log = setup.store.log(setup.sessionId);
  const skipped = new Map<string, string>();
  for (const e of log) if (e.kind === "skipped") skipped.set(e.turn, e.reason);
  const out: RewindPoint[] = [];
  const seen = new Set<string>();
  for (const p of turnPoints(log)) {
    try {
      checkTree(setup.store.objects, p.before, seen);
      out.push({ turn: p.turn, available: true });
    } catch (e) {
      out.push({ turn: p.turn, available: false, reason: `the files before ${p.turn} are unavailable: ${(e as Error).message}` });
    }
  }
  for (const [turn, reason] of skipped) if (!out.some((p) => p.turn === turn)) out.push({ turn, available: false, reason: `no checkpoint was recorded (${reason})` });
  return out.sort((a, b) => turnNumber(a.turn) - turnNumber(b.turn));
}

/** The turn /undo would undo and the one /redo would put back, read from the log alone (no walk). */
export function undoRedoTurns(setup: RewindSetup): { undo?: string; redo?: string } {
  const log = setup.store.log(setup.sessionId);
  const stack = undoStack(log);
  const undone = new Set(stack.map((u) => u.turn));
  const undo = [...turnPoints(log)].reverse().find((p) => !undone.has(p.turn))?.turn;
  const redo = stack.at(-1)?.turn;
  return { ...(undo ? { undo } : {}), ...(redo ? { redo } : {}) };
}

/** What restoring `target` would change now; throws RestoreUnavailableError with the reason when it cannot be done. */
export function previewRewind(setup: RewindSetup, target: RewindTarget, previous?: Parameters<typeof planRestore>[5]): RewindPreview {
  const { store, sessionId } = setup;
  const log = store.log(sessionId);
  const points = turnPoints(log);
  let root: string;
  let describes: string;
  const extra: Partial<RewindPreview> = {};
  if ("turn" in target) {
    const n = turnNumber(target.turn);
    if (Number.isNaN(n)) throw new RestoreUnavailableError(`"${target.turn}" is not a turn (turns look like t1, t2; t0 is before the first)`);
    const later = points.find((p) => turnNumber(p.turn) > n);
    if (!later) throw new RestoreUnavailableError(`no turn after ${target.turn} changed files in the workspace: there is nothing to restore`);
    root = later.before;
    describes = n === 0 ? "the files as they were before the first turn" : `the files as they were after ${target.turn} (before ${later.turn})`;
    extra.toTurn = target.turn;
  } else if ("undo" in target) {
    const undone = new Set(undoStack(log).map((u) => u.turn));
    const last = [...points].reverse().find((p) => !undone.has(p.turn));
    if (!last) throw new RestoreUnavailableError("no turn of this session changed files that are not undone already");
    root = last.before;
    describes = `the files as they were before ${last.turn}`;
    extra.undo = last.turn;
  } else {
    const top = undoStack(log).at(-1);
    if (!top) throw new RestoreUnavailableError("nothing to redo: no undo since the last turn changed files");
    root = top.from;
    describes = `the files as they were before /undo of ${top.turn}`;
    extra.redo = top.turn;
  }
  const target_ = targetState(store, root, describes);
  const lastRoot = lastRecorded(log);
  let last: WorkspaceState | undefined;
  try {
    last = lastRoot ? targetState(store, lastRoot, "the last recorded state") : undefined;
  } catch {
    last = new Map(); // unknown: every file present now counts as changed outside SCV, so nothing is replaced unasked
  }
  const plan = planRestore(store, setup.workspace, setup.maxFileBytes, target_, last, previous);
  return { id: planId(describes, planEntries(plan)), describes, root, plan, ...extra };
}

/** Each file a plan changes, with what it is now and what it becomes (hash and mode), as one comparable string. */
export function planEntries(plan: RestorePlan): Map<string, string> {
  const out = new Map<string, string>();
  const state = (f: { hash: string; mode: number } | undefined) => (f ? `${f.hash}:${f.mode & 0o777}` : "-");
  for (const c of plan.changes) out.set(c.path, `${c.action} ${c.changedOutside ? "outside" : "ours"} ${state(plan.now.files.get(c.path))} ${state(plan.target.get(c.path))}`);
  return out;
}

function planId(describes: string, entries: Map<string, string>): string {
  const hash = new Bun.CryptoHasher("sha256").update(describes);
  for (const [path, entry] of entries) hash.update(`\0${path}\0${entry}`);
  return hash.digest("hex").slice(0, 24);
}

/** The files whose entry differs between a plan shown earlier and the one made now (in either). */
export function planDifferences(shown: Map<string, string>, now: Map<string, string>): string[] {
  const paths = new Set([...shown.keys(), ...now.keys()]);
  return [...paths].filter((p) => shown.get(p) !== now.get(p)).sort();
}

export interface RewindDone extends RestoreResult {
  /** The workspace after the restore, for the recorder to compare later walks with. */
  after: ReturnType<typeof snapshot>;
}

/** Restores a preview (keeping files changed outside SCV unless named in `overwrite`) and logs it. */
export function applyRewind(setup: RewindSetup, preview: RewindPreview, overwrite: readonly string[]): RewindDone {
  const { store, sessionId, workspace } = setup;
  store.ensure();
  const from = writeTree(store.objects, stateOf(preview.plan.now.files));
  const result = applyRestore(store, workspace, preview.plan, overwrite);
  const after = snapshot(store, workspace, setup.maxFileBytes, preview.plan.now);
  const root = writeTree(store.objects, stateOf(after.files));
  store.append(sessionId, {
    kind: "restore",
    root,
    from,
    at: after.lookedAt,
    ...(preview.undo ? { undo: preview.undo } : {}),
    ...(preview.redo ? { redo: preview.redo } : {}),
    ...(preview.toTurn ? { to_turn: preview.toTurn } : {}),
  });
  return { ...result, after };
}

/** A plan as lines for a person: each file with what happens to it and a short diff; files changed outside SCV named. */
export function planLines(preview: RewindPreview, opts: { diffs: boolean } = { diffs: true }): string[] {
  const lines = [`restore ${preview.describes}:`];
  if (preview.plan.changes.length === 0) lines.push("  nothing to change: the files already match");
  for (const c of preview.plan.changes) {
    const verb = c.action === "restore" ? "restore" : c.action === "create" ? "create " : "delete ";
    lines.push(`  ${verb} ${c.path}${c.changedOutside ? "  (changed outside SCV since its last checkpoint: kept unless you confirm it by name)" : ""}`);
    if (opts.diffs && c.diff) for (const d of c.diff.split("\n")) lines.push(`      ${d}`);
  }
  return lines;
}
