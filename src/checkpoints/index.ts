// Checkpoints: the workspace recorded before and after each turn's changes, and restored to a point (/rewind,
// /undo, /redo, `scv sessions rewind`). One contract per session: `beforeChange` and `turnEnded` for the turn
// loop, `points`, `preview` and `apply` for whoever rewinds. Files outside the workspace are never covered.
import type { Config } from "../config/schema";
import type { TurnCheckpoints } from "../scope";
import { CheckpointRecorder } from "./recorder";
import { applyRewind, previewRewind, type RewindDone, type RewindPoint, type RewindPreview, rewindPoints, type RewindSetup, type RewindTarget, undoRedoTurns } from "./rewind";
import { CheckpointStore } from "./store";

export { CheckpointStore } from "./store";
export { RestoreUnavailableError } from "./restore";
export { planLines, type RewindPoint, type RewindPreview, type RewindTarget, type RewindDone, turnNumber } from "./rewind";

const stores = new Map<string, CheckpointStore>();

/** The checkpoint store under `home` (one per home and process). */
export function checkpointStore(home: string): CheckpointStore {
  let s = stores.get(home);
  if (!s) stores.set(home, (s = new CheckpointStore(home)));
  return s;
}

/** A session's checkpoints: recorded by its turns, restored on request. */
export class SessionCheckpoints implements TurnCheckpoints {
  private readonly recorder: CheckpointRecorder;
  private readonly setup: RewindSetup;

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

  /** The turn /undo would undo and the one /redo would put back (from the log; nothing is walked). */
  undoRedo(): { undo?: string; redo?: string } {
    return undoRedoTurns(this.setup);
  }

  preview(target: RewindTarget): RewindPreview {
    return previewRewind(this.setup, target);
  }

  apply(preview: RewindPreview, overwrite: readonly string[]): RewindDone {
    const done = applyRewind(this.setup, preview, overwrite);
    this.recorder.restored(done.after.files, done.after.lookedAt);
    return done;
  }
}

/** Checkpoints of a session no process has open (`scv sessions rewind`). */
export function storedSessionCheckpoints(home: string, sessionId: string, workspace: string, config: Config["checkpoints"]): SessionCheckpoints {
  return new SessionCheckpoints({ home, sessionId, workspace, config, openSessions: () => new Set([sessionId]) });
}
