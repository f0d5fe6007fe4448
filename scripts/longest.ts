// The longest functions and files under src/ (issue 58's measure): `bun scripts/longest.ts [N]`. A function is a
// `function` declaration or expression, a class method or an arrow function with a block body, measured in lines
// from its header to its closing brace. The scan skips strings, template literals and comments; it is a measure,
// not a parser (a brace inside a regular expression literal can skew one function).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "..", "src");
const top = Number(process.argv[2] ?? 5);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** The text with strings, template literals and comments blanked out (newlines kept), so braces can be counted. */
function code(text: string): string {
  let out = "";
  const stack: string[] = []; // "`" inside a template, "{" inside a template's ${ }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const inTemplate = stack.at(-1) === "`";
    if (inTemplate) {
      if (c === "\\") { out += "  "; i++; continue; }
      if (c === "`") { stack.pop(); out += " "; continue; }
      if (c === "$" && text[i + 1] === "{") { stack.push("{"); out += "  "; i++; continue; }
      out += c === "\n" ? "\n" : " ";
      continue;
    }
    if (c === "/" && text[i + 1] === "/") { while (i < text.length && text[i] !== "\n") i++; out += "\n"; continue; }
    if (c === "/" && text[i + 1] === "*") { const end = text.indexOf("*/", i + 2); const body = text.slice(i, end + 2); out += body.replace(/[^\n]/g, " "); i = end + 1; continue; }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      out += " ".repeat(j - i + 1);
      i = j;
      continue;
    }
    if (c === "`") { stack.push("`"); out += " "; continue; }
    if (c === "{" && stack.length) { stack.push("{"); out += c; continue; }
    if (c === "}" && stack.at(-1) === "{") { stack.pop(); out += stack.at(-1) === "`" ? " " : c; continue; }
    out += c;
  }
  return out;
}

const HEADER = /(\bfunction\b[^(]*\(|^\s*(?:(?:public|private|protected|static|async|get|set)\s+)*[A-Za-z_$][\w$]*\s*\([^)]*\)\s*(?::[^{]+)?\{\s*$|=>\s*\{\s*$|^\s*(?:export\s+)?(?:abstract\s+)?class\s+[A-Za-z_$])/;
const functions: { lines: number; where: string }[] = [];
const classes: { lines: number; where: string }[] = [];
const sizes: { lines: number; where: string }[] = [];
for (const file of files(root)) {
  const text = readFileSync(file, "utf8");
  const rel = relative(join(root, ".."), file);
  const lines = code(text).split("\n");
  sizes.push({ lines: lines.length, where: rel });
  lines.forEach((line, i) => {
    if (!HEADER.test(line) || /^\s*(if|for|while|switch|catch)\b/.test(line)) return;
    // From the first `{` at or after this line, to its match.
    let depth = 0;
    let opened = false;
    for (let j = i; j < lines.length && j < i + 2000; j++) {
      for (const ch of lines[j]!) {
        if (ch === "{") { depth++; opened = true; }
        else if (ch === "}") depth--;
        if (opened && depth === 0) {
          const entry = { lines: j - i + 1, where: `${rel}:${i + 1} ${text.split("\n")[i]!.trim().slice(0, 70)}` };
          (/\bclass\s/.test(line) ? classes : functions).push(entry);
          return;
        }
      }
    }
  });
}
const show = (title: string, list: { lines: number; where: string }[]) => {
  console.log(title);
  for (const f of list.sort((a, b) => b.lines - a.lines).slice(0, top)) console.log(`  ${String(f.lines).padStart(5)}  ${f.where}`);
};
show(`the ${top} longest functions`, functions);
show(`the ${top} longest classes`, classes);
show(`the ${top} longest files`, sizes);
