// Project instructions for SCV's own model, read the way Codex reads them: AGENTS.md in every directory from the
// project root (the nearest enclosing git work tree, else the workspace) down to the workspace, concatenated,
// at most 32 KiB in all. A directory without AGENTS.md contributes its CLAUDE.md instead. The files are the
// workspace's, so they are read through the bounded safe reader and presented as untrusted project text.
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { KiB, readBoundedTextIfExists, SafeReadError } from "../fs/safe-read";
import { cutUtf8Decoded } from "../text/cut";

export const PROJECT_INSTRUCTIONS_MAX_BYTES = 32 * KiB;
const NAMES = ["AGENTS.md", "CLAUDE.md"] as const;

export interface ProjectInstructions {
  /** Files read, root first. */
  files: string[];
  /** The concatenated text (with a header per file), at most PROJECT_INSTRUCTIONS_MAX_BYTES. */
  text: string;
}

/** The directories from the project root down to `workspace`, root first. */
function directories(workspace: string): string[] {
  const chain = [workspace];
  for (let dir = workspace; ; ) {
    if (existsSync(join(dir, ".git"))) return chain;
    const up = dirname(dir);
    if (up === dir) return [workspace]; // no enclosing work tree: the workspace alone
    dir = up;
    chain.unshift(dir);
  }
}

export function readProjectInstructions(workspace: string): ProjectInstructions | undefined {
  const files: string[] = [];
  const parts: string[] = [];
  let used = 0;
  for (const dir of directories(workspace)) {
    for (const name of NAMES) {
      const file = join(dir, name);
      let text: string | undefined;
      try {
        text = readBoundedTextIfExists(file, { what: name, maxBytes: PROJECT_INSTRUCTIONS_MAX_BYTES });
      } catch (e) {
        // Present but unusable (too large, a FIFO, unreadable): say so rather than drop it silently.
        if (!(e instanceof SafeReadError)) throw e;
        parts.push(`--- ${display(workspace, file)} (not read: ${e.message}) ---`);
        break;
      }
      if (text === undefined) continue; // no AGENTS.md here: try CLAUDE.md
      const block = `--- ${display(workspace, file)} ---\n${text.trim()}`;
      const room = PROJECT_INSTRUCTIONS_MAX_BYTES - used;
      if (room <= 0) break;
      const kept = Buffer.byteLength(block) <= room ? block : `${cutUtf8Decoded(block, room - 80)}\n[… cut: project instructions are limited to 32 KiB in all]`;
      parts.push(kept);
      files.push(file);
      used += Buffer.byteLength(kept);
      break;
    }
  }
  if (parts.length === 0) return undefined;
  return { files, text: parts.join("\n\n") };
}

function display(workspace: string, file: string): string {
  const rel = relative(workspace, file);
  return rel.startsWith("..") ? file : rel;
}
