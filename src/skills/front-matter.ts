// A SKILL.md's front matter: the YAML block between two `---` lines at the top, holding `name` (a slug) and
// `description`. Both end up in the system prompt, so both are checked and bounded here; other keys
// (allowed-tools, metadata, license, ...) are accepted and ignored.

/** Agent Skills' own rule: lowercase letters and digits in hyphen-separated words, 1-64 characters. */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;

export type FrontMatter = { ok: true; name: string; description: string } | { ok: false; problem: string };

/** Parses the front matter at the start of `text` (which may be only the file's first bytes). */
export function parseFrontMatter(text: string, readBytes: number): FrontMatter {
  const opening = /^\uFEFF?---[ \t]*\r?\n/.exec(text);
  if (!opening) {
    return fail("SKILL.md has no front matter: start it with a line `---`, then `name:` and `description:`, then a line `---`");
  }
  // Searched, not split into lines: the rest of the file can be long and only the front matter matters here.
  const rest = text.slice(opening[0].length);
  const closing = /^---[ \t]*\r?$/m.exec(rest);
  if (!closing) return fail(`the front matter is not closed by a line \`---\` within the first ${readBytes} bytes of SKILL.md`);
  let data: unknown;
  try {
    data = Bun.YAML.parse(rest.slice(0, closing.index));
  } catch (e) {
    const first = String((e as Error).message).split("\n")[0]!.slice(0, 200);
    return fail(`the front matter is not valid YAML: ${first}`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return fail("the front matter is not a list of `key: value` lines");
  const { name, description } = data as Record<string, unknown>;
  const nameProblem = checkName(name);
  if (nameProblem) return fail(nameProblem);
  const descriptionProblem = checkDescription(description);
  if (descriptionProblem) return fail(descriptionProblem);
  return { ok: true, name: name as string, description: oneLine(description as string) };
}

function checkName(name: unknown): string | undefined {
  if (name === undefined || name === null || name === "") return "the front matter has no `name`; add `name: my-skill`";
  if (typeof name !== "string") return "`name` must be text, such as `name: my-skill`";
  if (name.length > MAX_NAME_CHARS) return `\`name\` is ${name.length} characters long; the most is ${MAX_NAME_CHARS}`;
  if (!SKILL_NAME.test(name)) {
    return `\`name\` ${JSON.stringify(name)} is not a slug: use lowercase letters and digits in words joined by single hyphens, such as release-checks`;
  }
  return undefined;
}

function checkDescription(description: unknown): string | undefined {
  if (description === undefined || description === null) return "the front matter has no `description`; add one line saying when to use the skill";
  if (typeof description !== "string") return "`description` must be text";
  const text = oneLine(description);
  if (text === "") return "`description` is empty; say when to use the skill";
  if (text.length > MAX_DESCRIPTION_CHARS) return `\`description\` is ${text.length} characters long; the most is ${MAX_DESCRIPTION_CHARS}`;
  if (/\p{Cc}/u.test(text)) return "`description` contains control characters; use plain text";
  return undefined;
}

/** Line breaks and runs of spaces become one space, so a description stays one list item in the prompt. */
function oneLine(s: string): string {
  return s.replace(/[ \t\r\n\f\v]+/g, " ").trim();
}

function fail(problem: string): FrontMatter {
  return { ok: false, problem };
}
