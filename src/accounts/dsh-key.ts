// DeepSeek Harness's API key in its own credential file, `.dsh/.credentials.yaml` in its private home.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFileAtomic } from "../fs/private-file";
import { readBoundedTextIfExists, SafeReadError } from "../fs/safe-read";
import { LoginError } from "./login-io";
import { dshCredentialsFile, MAX_SIGNIN_FILE_BYTES } from "../agents/signin";

/** Writes `refs.DEEPSEEK_API_KEY` atomically (a 0600 temp file renamed into place); other entries are kept. */
export function storeDshKey(home: string, key: string): string {
  const file = dshCredentialsFile(home);
  mkdirSync(join(home, ".dsh"), { recursive: true, mode: 0o700 });
  let existing: string | undefined;
  try {
    existing = readBoundedTextIfExists(file, { what: "sign-in file", maxBytes: MAX_SIGNIN_FILE_BYTES });
  } catch (e) {
    // Rewriting would drop whatever else the file holds: say what is wrong instead.
    throw new LoginError(e instanceof SafeReadError ? e.message : `could not read ${file}: ${(e as Error).message}`);
  }
  const text = withDshKey(existing, key);
  try {
    writePrivateFileAtomic(file, text);
  } catch (e) {
    throw new LoginError(`could not write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return file;
}

/** The credential file's text with the key set under `refs:` (a YAML double-quoted scalar). */
export function withDshKey(existing: string | undefined, key: string): string {
  const entry = (indent: string) => `${indent}DEEPSEEK_API_KEY: ${JSON.stringify(key)}`;
  if (!existing?.trim()) return `refs:\n${entry("  ")}\n`;
  const lines = existing.replace(/\n+$/, "").split("\n");
  const refs = lines.findIndex((l) => /^refs\s*:/.test(l));
  if (refs < 0) return `${lines.join("\n")}\nrefs:\n${entry("  ")}\n`;
  if (!/^refs\s*:\s*(#.*)?$/.test(lines[refs]!)) {
    throw new LoginError("the existing .dsh/.credentials.yaml writes refs on one line; run `scv agents logout dsh` first, then log in again");
  }
  let end = refs + 1;
  while (end < lines.length && (/^\s/.test(lines[end]!) || lines[end]!.trim() === "")) end++;
  const block = lines.slice(refs + 1, end);
  const at = block.findIndex((l) => /^\s+DEEPSEEK_API_KEY\s*:/.test(l));
  if (at >= 0) {
    lines[refs + 1 + at] = entry(/^\s+/.exec(block[at]!)![0]);
  } else {
    const indent = /^\s+/.exec(block.find((l) => l.trim() !== "") ?? "")?.[0] ?? "  ";
    lines.splice(refs + 1, 0, entry(indent));
  }
  return `${lines.join("\n")}\n`;
}
