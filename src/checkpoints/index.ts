// Checkpoints: the workspace recorded before and after each turn's changes, and restored to a point (/rewind,
// /undo, /redo, `scv sessions rewind`). One contract per session: `beforeChange` and `turnEnded` for the turn
// loop, `points`, `preview` and `apply` for whoever rewinds. Files outside the workspace are never covered.
import type { Config } from "../config/schema";
import type { TurnCheckpoints } from "../scope";
import { CheckpointRecorder } from "./recorder";
import { RestoreChangedError } from "./restore";
import { applyRewind, planDifferences, planEntries, previewRewind, type RewindDone, type RewindPoint, type RewindPreview, rewindPoints, type RewindSetup, type RewindTarget, undoRedoTurns } from "./rewind";
import { turnPoints } from "./log";
import { CheckpointStore } from "./store";

export { CheckpointStore } from "./store";
export { RestoreChangedError, RestoreUnavailableError } from "./restore";
export { planLines, type RewindPoint, type RewindPreview, type RewindTarget, type RewindDone, turnNumber } from "./rewind";

/** What rewinds a session's files (the server's session.checkpoints and session.rewind): its points, a preview, the restore. */
export interface SessionRewind {
  points(): RewindPoint[];
  undoRedo(): { undo?: string; redo?: string };
  preview(target: RewindTarget): RewindPreview;
  /** `confirmed`: the plan id the person saw; a plan that differs now is refused (RestoreChangedError). */
  apply(preview: RewindPreview, overwrite: readonly string[], confirmed?: string): RewindDone;
}

declare module "../scope" {
  interface SessionServices {
    /** The session's rewind, set with `checkpoints` when they are kept (the same SessionCheckpoints). */
    rewind?: SessionRewind;
  }
}

const stores = new Map<string, CheckpointStore>();

/** How many shown plans a session remembers, to name what changed when an older one is confirmed. */
const SHOWN_PLANS = 8;

/** The checkpoint store under `home` (one per home and process). */
export function checkpointStore(home: string): CheckpointStore {
  let s = stores.get(home);
  if (!s) stores.set(home, (s = new CheckpointStore(home)));
  return s;
}

/** A session's checkpoints: recorded by its turns, restored on request. */
export class SessionCheckpoints implements TurnCheckpoints, SessionRewind {
  private readonly recorder: CheckpointRecorder;
  private readonly setup: RewindSetup;
  /** Plans shown lately (id → each file's entry), so a confirmation of one that no longer holds names the files. */
  private readonly shown = new Map<string, Map<string, string>>();

  constructor(opts: { home: string; sessionId: string; workspace: string; config: Config["checkpoints"]; openSessions(): ReadonlySet<string>; sessionExists?(id: string): boolean }) {
    const store = checkpointStore(opts.home);
    this.setup = { store, sessionId: opts.sessionId, workspace: opts.workspace, maxFileBytes: opts.config.max_file_bytes };
    this.recorder = new CheckpointRecorder({ ...this.setup, maxBytes: opts.config.max_bytes, openSessions: opts.openSessions, ...(opts.sessionExists ? { sessionExists: opts.sessionExists } : {}) });
  }

  beforeChange(turn: string): string[] {
    return this.recorder.beforeChange(turn);
  }

  turnEnded(turn: string): string[] {
    return this.recorder.turnEnded(turn);
  }

  /** The session closed: its watch on the workspace goes. */
  close(): void {
    this.recorder.close();
  }

  points(): RewindPoint[] {
    return rewindPoints(this.setup);
  }

  /** Whether `turn` changed the workspace: its files after differ from before (false when it recorded nothing). */
  changed(turn: string): boolean {
    const point = turnPoints(this.setup.store.log(this.setup.sessionId)).find((p) => p.turn === turn);
    return !!point?.after && point.after !== point.before;
  }

  /** The turn /undo would undo and the one /redo would put back (from the log; nothing is walked). */
  undoRedo(): { undo?: string; redo?: string } {
    return undoRedoTurns(this.setup);
  }

  preview(target: RewindTarget): RewindPreview {
    const preview = previewRewind(this.setup, target);
    this.shown.delete(preview.id);
    this.shown.set(preview.id, planEntries(preview.plan));
    if (this.shown.size > SHOWN_PLANS) this.shown.delete(this.shown.keys().next().value!);
    return preview;
  }

  /**
   * Restores a plan made just now. `confirmed`: the id of the plan the person was shown and confirmed (made in an
   * earlier request); when the plan differs now, nothing is restored and RestoreChangedError names the files.
   */
  apply(preview: RewindPreview, overwrite: readonly string[], confirmed?: string): RewindDone {
    if (confirmed !== undefined && confirmed !== preview.id) {
      const shown = this.shown.get(confirmed);
      throw new RestoreChangedError(shown ? planDifferences(shown, planEntries(preview.plan)) : []);
    }
    const done = applyRewind(this.setup, preview, overwrite);
    this.recorder.restored(done.after.files, done.after.lookedAt);
    return done;
  }
}

/** Checkpoints of a session no process has open (`scv sessions rewind`). */
export function storedSessionCheckpoints(home: string, sessionId: string, workspace: string, config: Config["checkpoints"]): SessionCheckpoints {
  return new SessionCheckpoints({ home, sessionId, workspace, config, openSessions: () => new Set([sessionId]) });
}
