// Sessions are stored under their workspace's real path (session.start resolves links), so looking them up by a
// directory resolves it the same way. A module of its own, so commands use it without loading the store.
import { realpathSync } from "node:fs";

/** The workspace sessions started in `dir` are stored under; `dir` as given when it cannot be resolved (gone). */
export function storedWorkspace(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
