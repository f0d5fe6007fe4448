// What rewinding a session's conversation to a turn means, checked the same way for a live session and a stored
// one: the turn must exist. A compaction after it is undone by the rewind (src/sessions/load.ts), so the summary of a
// rewound turn never stays in the history, whether the compaction ran in a turn or between turns (`/compact`).
import { handleNumber, type LoadedSession } from "./load";

/** How many turns would leave the conversation; throws with the reason when the rewind cannot be done. */
export function checkRewind(loaded: LoadedSession, turn: string): { dropped: number } {
  const keep = handleNumber(turn, "t");
  if (turn !== "t0" && keep === 0) throw new Error(`"${turn}" is not a turn (turns look like t1, t2; t0 is before the first)`);
  if (keep > 0 && !loaded.turns.some((t) => t.turn_id === turn)) throw new Error(`the session has no turn ${turn} in its conversation (see scv sessions show)`);
  return { dropped: loaded.turns.filter((t) => handleNumber(t.turn_id, "t") > keep).length };
}
