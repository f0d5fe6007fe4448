// Skills SCV writes (`skill_manage`): a new, changed or removed user skill is kept as a draft under
// $SCV_HOME/skill-drafts/<name>/ that nothing reads until the owner accepts it (`scv skills accept`, `/skills
// accept` in the TUI or the owner's chat); accepting puts it under $SCV_HOME/skills/<name> with a marker saying SCV
// wrote it. A draft holds the whole folder (SKILL.md and any files, at most 256 KiB), so what is accepted is
// exactly what the person was shown.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import { KiB } from "../fs/safe-read";
import { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, parseFrontMatter, SKILL_NAME } from "./front-matter";

export const MAX_SKILL_FOLDER_BYTES = 256 * KiB;
const MAX_FILES = 32;
/** In a draft folder: what the draft does and where it came from. Hidden, so discovery never lists it. */
const DRAFT_META = ".draft.json";
/** In an accepted skill's folder: SCV wrote it (scv skills list marks it). */
export const WRITTEN_MARKER = ".scv-written.json";

export type DraftAction = "create" | "update" | "delete";

export interface DraftInput {
  action: DraftAction;
  name: string;
  /** SKILL.md's whole text (front matter and body), for create and update. */
  skill?: string;
  /** Other files of the folder by relative path (scripts, references), for create and update. */
  files?: Record<string, string>;
}

export interface Draft {
  name: string;
  action: DraftAction;
  created_at: string;
  session?: string;
  /** The folder's files, SKILL.md first, by relative path (empty for a removal). */
  files: Record<string, string>;
}

/** A draft SCV refuses to keep; the message says why and what to do. */
export class SkillDraftError extends Error {}

export const draftsDir = (scvHome: string) => join(scvHome, "skill-drafts");
export const userSkillDir = (scvHome: string, name: string) => join(scvHome, "skills", name);

/** Checks a draft before anything is written; returns the folder's files as they would be kept. */
export function checkDraft(input: DraftInput, opts: { projectSkillNames: readonly string[]; scvHome: string }): Record<string, string> {
  if (!SKILL_NAME.test(input.name) || input.name.length > MAX_NAME_CHARS) {
    throw new SkillDraftError(`skill name ${JSON.stringify(input.name)} must be a plain folder name: lowercase letters and digits in hyphen-separated words, at most ${MAX_NAME_CHARS} characters`);
  }
  const shadowed = opts.projectSkillNames.find((n) => n.endsWith(`:${input.name}`));
  if (shadowed && input.action === "create") {
    throw new SkillDraftError(`a user skill named ${input.name} would shadow the project skill ${shadowed}; pick another name`);
  }
  const exists = existsSync(join(userSkillDir(opts.scvHome, input.name), "SKILL.md"));
  if (input.action === "create" && exists) throw new SkillDraftError(`a skill named ${input.name} exists already; use action update to change it`);
  if (input.action !== "create" && !exists) throw new SkillDraftError(`there is no skill named ${input.name} under ${join(opts.scvHome, "skills")} to ${input.action}; SCV changes only user skills kept there`);
  if (input.action === "delete") return {};
  if (!input.skill) throw new SkillDraftError("skill (the whole SKILL.md text, front matter first) is required to create or update a skill");
  const front = parseFrontMatter(input.skill, Buffer.byteLength(input.skill));
  if (!front.ok) throw new SkillDraftError(front.problem);
  if (front.name !== input.name) throw new SkillDraftError(`SKILL.md names the skill ${JSON.stringify(front.name)} but the call names it ${JSON.stringify(input.name)}; make them the same`);
  if (front.description.length > MAX_DESCRIPTION_CHARS) throw new SkillDraftError(`the description is longer than ${MAX_DESCRIPTION_CHARS} characters`);
  const files: Record<string, string> = { "SKILL.md": input.skill };
  const extra = Object.entries(input.files ?? {});
  if (extra.length > MAX_FILES) throw new SkillDraftError(`at most ${MAX_FILES} files besides SKILL.md`);
  for (const [path, text] of extra) files[checkedPath(path)] = text;
  const bytes = Object.entries(files).reduce((n, [p, t]) => n + Buffer.byteLength(p) + Buffer.byteLength(t), 0);
  if (bytes > MAX_SKILL_FOLDER_BYTES) throw new SkillDraftError(`the skill folder would hold ${bytes} bytes, over the cap of ${MAX_SKILL_FOLDER_BYTES} (256 KiB); keep the skill smaller`);
  return files;
}

function checkedPath(path: string): string {
  const clean = normalize(path);
  if (isAbsolute(path) || clean.startsWith("..") || clean.split(sep).some((p) => p === ".." || p.startsWith(".")) || clean === "SKILL.md" || clean === ".") {
    throw new SkillDraftError(`file path ${JSON.stringify(path)} must be relative to the skill's folder, without "..", hidden parts or SKILL.md itself`);
  }
  return clean;
}

/** The current files of a user skill (what an update or removal changes), by relative path. */
export function currentFiles(scvHome: string, name: string): Record<string, string> {
  const root = userSkillDir(scvHome, name);
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path, relPath);
      else if (entry.isFile()) out[relPath] = readFileSync(path, "utf8");
    }
  };
  if (existsSync(root)) walk(root, "");
  return out;
}

/** Keeps a checked draft (replacing an earlier draft of the same name). */
export function writeDraft(scvHome: string, input: DraftInput, files: Record<string, string>, session?: string): Draft {
  const dir = join(draftsDir(scvHome), input.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const draft: Draft = { name: input.name, action: input.action, created_at: new Date().toISOString(), ...(session ? { session } : {}), files };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, path), text, { mode: 0o600 });
  }
  writeFileSync(join(dir, DRAFT_META), JSON.stringify({ name: draft.name, action: draft.action, created_at: draft.created_at, session }), { mode: 0o600 });
  return draft;
}

/** Every kept draft, oldest first; a damaged one is listed with its problem instead. */
export function listDrafts(scvHome: string): (Draft | { name: string; problem: string })[] {
  const root = draftsDir(scvHome);
  if (!existsSync(root)) return [];
  const out: (Draft | { name: string; problem: string })[] = [];
  for (const name of readdirSync(root).sort()) {
    try {
      out.push(readDraft(scvHome, name));
    } catch (e) {
      out.push({ name, problem: (e as Error).message });
    }
  }
  return out.sort((a, b) => ("created_at" in a && "created_at" in b ? a.created_at.localeCompare(b.created_at) : 0));
}

export function readDraft(scvHome: string, name: string): Draft {
  const dir = join(draftsDir(scvHome), name);
  if (!SKILL_NAME.test(name) || !existsSync(join(dir, DRAFT_META))) throw new SkillDraftError(`there is no draft named ${JSON.stringify(name)}; scv skills drafts lists them`);
  const meta = JSON.parse(readFileSync(join(dir, DRAFT_META), "utf8")) as Omit<Draft, "files">;
  const files: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === DRAFT_META) continue;
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(d, entry.name), relPath);
      else if (lstatSync(join(d, entry.name)).isFile()) files[relPath] = readFileSync(join(d, entry.name), "utf8");
    }
  };
  walk(dir, "");
  return { ...meta, name, files };
}

/** Puts a draft in place (or removes the skill, for a removal) and forgets the draft. */
export function acceptDraft(scvHome: string, name: string): Draft {
  const draft = readDraft(scvHome, name);
  const target = userSkillDir(scvHome, name);
  const dir = join(draftsDir(scvHome), name);
  if (draft.action === "delete") {
    rmSync(target, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    return draft;
  }
  rmSync(join(dir, DRAFT_META));
  writeFileSync(join(dir, WRITTEN_MARKER), JSON.stringify({ written_by: "scv", accepted_at: new Date().toISOString(), session: draft.session }), { mode: 0o600 });
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  // The old folder goes aside first, so a failed rename leaves the skill as it was.
  const aside = `${target}.replaced-${process.pid}`;
  if (existsSync(target)) renameSync(target, aside);
  try {
    renameSync(dir, target);
  } catch (e) {
    if (existsSync(aside)) renameSync(aside, target);
    throw e;
  }
  rmSync(aside, { recursive: true, force: true });
  return draft;
}

export function rejectDraft(scvHome: string, name: string): Draft {
  const draft = readDraft(scvHome, name);
  rmSync(join(draftsDir(scvHome), name), { recursive: true, force: true });
  return draft;
}

/** Whether SCV wrote this skill folder (accepted from a draft). */
export function writtenByScv(skillDir: string): boolean {
  return existsSync(join(skillDir, WRITTEN_MARKER));
}
