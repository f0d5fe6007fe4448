// Import digests: each `scv agents import` records a digest of what it copied (never the content) in
// $SCV_HOME/state/imports/<agent>.json, so `scv agents status` and `scv config show` can say whether the
// source still matches or has changed since, with the command to run again.
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { lazySchema } from "../../lazy-schema";
import { ensurePrivateDir, writePrivateFileAtomic } from "../../fs/private-file";

export const ImportRecord = lazySchema((z) => z.object({
  agent: z.string(),
  /** Where the copy came from, in words (a directory, or "SCV's provider <name>"). */
  source: z.string(),
  /** The command that made it, to run again when the source changes. */
  command: z.string(),
  /** sha256 over what was copied. */
  digest: z.string(),
  imported_unix: z.number(),
}));
export type ImportRecord = z.infer<typeof ImportRecord>;

export type ImportState =
  | { state: "up_to_date"; record: ImportRecord }
  | { state: "changed"; record: ImportRecord }
  | { state: "source_unreadable"; record: ImportRecord; reason: string };

function recordPath(scvHome: string, agent: string): string {
  return join(scvHome, "state", "imports", `${agent}.json`);
}

/** sha256 over labelled parts, so moving bytes between parts changes the digest. */
export function digestOf(parts: readonly (readonly [string, string])[]): string {
  const h = createHash("sha256");
  for (const [label, value] of parts) h.update(`${label}\0${Buffer.byteLength(value)}\0${value}\0`);
  return `sha256:${h.digest("hex")}`;
}

export function writeImportRecord(scvHome: string, record: Omit<ImportRecord, "imported_unix">): void {
  const dir = join(scvHome, "state", "imports");
  ensurePrivateDir(dir);
  writePrivateFileAtomic(recordPath(scvHome, record.agent), `${JSON.stringify({ ...record, imported_unix: Math.floor(Date.now() / 1000) })}\n`);
}

export function readImportRecord(scvHome: string, agent: string): ImportRecord | undefined {
  try {
    return ImportRecord.parse(JSON.parse(readFileSync(recordPath(scvHome, agent), "utf8")));
  } catch {
    return undefined;
  }
}

/** Compares the source as it is now (`current` computes its digest, or throws why it cannot) with the record. */
export function importState(scvHome: string, agent: string, current: () => string): ImportState | undefined {
  const record = readImportRecord(scvHome, agent);
  if (!record) return undefined;
  let now: string;
  try {
    now = current();
  } catch (e) {
    return { state: "source_unreadable", record, reason: (e as Error).message };
  }
  return now === record.digest ? { state: "up_to_date", record } : { state: "changed", record };
}

/** One line: `imported from X: up to date`, or that the source changed, with the command to run. */
export function describeImport(s: ImportState): string {
  const from = `imported from ${s.record.source}`;
  if (s.state === "up_to_date") return `${from}: up to date`;
  if (s.state === "changed") return `${from}: the source has changed since; run \`${s.record.command}\``;
  return `${from}: the source cannot be read now (${s.reason}); run \`${s.record.command}\` once it is back`;
}

/** A logout, or a sign-in that replaces the copy, forgets the import: there is no copy left to compare. */
export function forgetImport(scvHome: string, agent: string): void {
  rmSync(recordPath(scvHome, agent), { force: true });
}
