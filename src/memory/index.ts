// The owner's memory (see files.ts): its public surface. A session carries memory only when it serves the owner
// (the terminal, `exec`, the owner's direct chat) and memory is enabled; nothing here knows about sessions
// beyond the few fields it reads.
import { configuredSecrets } from "../config/configured-secrets";
import type { Config } from "../config/schema";
import { registeredSecrets } from "../text/scrub";
import type { MemoryPlace } from "./files";

export { applyMemoryEdit, MemoryEditError, refuseSecrets, type MemoryEdit } from "./edit";
export {
  capKey,
  clearMemory,
  fileTitle,
  MemoryFullError,
  memoryCap,
  memoryFile,
  planMemoryEdit,
  readMemory,
  readMemoryWhole,
  updateMemory,
  workspaceId,
  type MemoryPlace,
  type MemoryScope,
  type MemoryState,
} from "./files";
export {
  compactionMemoryNote,
  formatBytes,
  memoryReport,
  memorySection,
  memoryStatusLine,
  readSnapshot,
  SAVE_STEP_MAX_CALLS,
  SAVE_STEP_PROMPT,
  snapshotNotices,
  usageLine,
  type MemorySnapshot,
} from "./prompt";

/** The fields of a session's scope memory reads. */
export interface MemoryHolder {
  owner?: boolean;
  scvHome: string;
  workspace: string;
  config: Config;
}

/** Where this session's memory lives, or undefined when the session carries none (not the owner's, or disabled). */
export function memoryPlaceOf(scope: MemoryHolder): MemoryPlace | undefined {
  if (scope.owner !== true || !scope.config.memory.enabled) return undefined;
  return { home: scope.scvHome, workspace: scope.workspace, config: scope.config.memory };
}

/** The secrets memory never holds nor sends: every configured one (keys, headers, search and MCP secrets) and every registered one. */
export function memorySecrets(scope: { config: Config; env: Readonly<Record<string, string | undefined>> }): string[] {
  return [...configuredSecrets(scope.config, scope.env as NodeJS.ProcessEnv, scope.config.provider.active), ...registeredSecrets()];
}
