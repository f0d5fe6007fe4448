// session.checkpoints and session.rewind: a live session's rewind points, and rewinding its files (through its
// checkpoints, src/checkpoints) and its conversation (a `rewound` record in its session file).
import { RestoreChangedError, RestoreUnavailableError, type RewindPreview } from "../checkpoints/index";
import { RpcError } from "../protocol/rpc";
import { ERROR_CODES, type RequestParams, type RequestResult } from "../protocol/schema";
import type { Session } from "./session";

/** The session's rewind service (src/checkpoints), set in its context when it keeps checkpoints. */
const checkpointsOf = (s: Session) => s.scope.services.rewind;

export function sessionCheckpoints(s: Session): RequestResult<"session.checkpoints"> {
  const cp = checkpointsOf(s);
  const stored = s.scope.journal?.store.load(s.id);
  const userTurns = (stored?.turns ?? []).filter((t) => t.origin.kind === "user" || t.origin.kind === "goal");
  if (!cp) return { enabled: false, turns: userTurns.map((t) => ({ turn_id: t.turn_id, prompt: t.prompt, files: false, reason: "checkpoints are off in this session" })) };
  const points = cp.points();
  const turns = userTurns.map((t) => {
    const n = Number(t.turn_id.slice(1));
    const later = points.find((p) => Number(p.turn.slice(1)) > n);
    if (!later) return { turn_id: t.turn_id, prompt: t.prompt, files: false, reason: "no later turn changed files: nothing to restore" };
    return { turn_id: t.turn_id, prompt: t.prompt, files: later.available, ...(later.reason ? { reason: later.reason } : {}) };
  });
  const { undo, redo } = cp.undoRedo();
  return { enabled: true, turns, ...(undo ? { undo } : {}), ...(redo ? { redo } : {}) };
}

export function rewindSession(s: Session, p: RequestParams<"session.rewind">): RequestResult<"session.rewind"> {
  const chosen = [p.to_turn !== undefined, p.undo === true, p.redo === true].filter(Boolean).length;
  if (chosen !== 1) throw new RpcError(ERROR_CODES.invalid_params, "give exactly one of to_turn, undo or redo");
  const files = p.files ?? true;
  const conversation = p.to_turn !== undefined ? (p.conversation ?? true) : false;
  if (p.conversation && p.to_turn === undefined) throw new RpcError(ERROR_CODES.invalid_params, "undo and redo rewind files only; use to_turn to rewind the conversation");
  if (!files && !conversation) throw new RpcError(ERROR_CODES.invalid_params, "nothing to rewind: files and conversation are both false");
  if (s.scope.turns.busy()) throw new RpcError(ERROR_CODES.invalid_params, "a turn is running; wait for it to end or cancel it first");
  const result: RequestResult<"session.rewind"> = { changes: [], applied: false };
  const cp = checkpointsOf(s);
  let preview: RewindPreview | undefined;
  if (files) {
    if (!cp) throw new RpcError(ERROR_CODES.invalid_params, "this session keeps no checkpoints ([checkpoints] enabled = false, or a tool-free or unstored session), so its files cannot be rewound");
    try {
      preview = cp.preview(p.to_turn !== undefined ? { turn: p.to_turn } : p.undo ? { undo: true } : { redo: true });
    } catch (e) {
      // A rewind of the conversation goes on when no later turn changed files; anything else is said.
      const nothingLater = e instanceof RestoreUnavailableError && e.message.startsWith("no turn after");
      if (!(conversation && nothingLater)) throw new RpcError(ERROR_CODES.invalid_params, (e as Error).message);
    }
    if (preview) {
      result.describes = preview.describes;
      result.plan_id = preview.id;
      result.changes = preview.plan.changes.map((c) => ({ path: c.path, action: c.action, diff: c.diff, ...(c.changedOutside ? { changed_outside: true } : {}) }));
    }
  }
  if (!p.apply) return result;
  // The conversation is checked first and rewound last, so a refusal or a damaged checkpoint leaves both as they were.
  const rewindConversation = (check: boolean) => {
    try {
      return s.rewindConversation(p.to_turn!, { check }).dropped;
    } catch (e) {
      throw new RpcError(ERROR_CODES.invalid_params, (e as Error).message);
    }
  };
  if (conversation) rewindConversation(true);
  if (preview && cp) {
    try {
      const done = cp.apply(preview, p.overwrite ?? [], p.plan_id);
      Object.assign(result, { restored: done.restored, created: done.created, deleted: done.deleted, kept: done.kept });
    } catch (e) {
      // Changed since the plan was shown: the client shows the new plan (this result's fields) and asks again.
      if (e instanceof RestoreChangedError) throw new RpcError(ERROR_CODES.invalid_params, e.message, { changed: e.paths, plan_id: preview.id });
      throw new RpcError(ERROR_CODES.internal_error, (e as Error).message);
    }
  }
  if (conversation) result.conversation_rewound = rewindConversation(false);
  result.applied = true;
  return result;
}
