// The import graph of src/, read with a regex scan (no compiler, so it stays fast): every static import,
// `export … from`, dynamic `import("…")`, `require("…")` and type-level `import("…")` with a relative
// specifier, resolved to a file of the scanned tree. Checked against the layers in ./layers.ts.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";

/** file (relative to the scanned root, "/" separators) → the files it imports. */
export type ImportGraph = Map<string, Set<string>>;

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/** The graph of every .ts file under `root`. */
export function readImportGraph(root: string): ImportGraph {
  const sources = new Map<string, string>();
  for (const file of listSources(root)) sources.set(relative(root, file).split("\\").join("/"), readFileSync(file, "utf8"));
  return importGraphOf(sources);
}

/** The graph of a set of sources (path → text), resolving specifiers among those paths only. */
export function importGraphOf(sources: ReadonlyMap<string, string>): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [from, text] of sources) {
    const targets = new Set<string>();
    for (const m of stripComments(text).matchAll(SPECIFIER)) {
      const spec = m[1]!;
      if (!spec.startsWith(".")) continue;
      const target = resolveAmong(sources, posix.dirname(from), spec);
      if (target && target !== from) targets.add(target);
    }
    graph.set(from, targets);
  }
  return graph;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listSources(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}

function resolveAmong(sources: ReadonlyMap<string, string>, fromDir: string, spec: string): string | undefined {
  const base = posix.normalize(posix.join(fromDir, spec));
  return [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, ".ts")].find((c) => c.endsWith(".ts") && sources.has(c));
}

/** Drops comments so an example import in a doc comment is not read as an edge. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Every import circle between files, each as the path that closes it (its first file repeated at the end). */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      const s = state.get(next);
      if (s === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!s) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The concern a file belongs to: its top folder, or the file's own name for a top-level file (`scope.ts` → scope). */
export function concernOf(file: string): string {
  const slash = file.indexOf("/");
  return slash < 0 ? file.replace(/\.ts$/, "") : file.slice(0, slash);
}

/**
 * Every import that does not point down: `layers` lists concerns from the floor up, and a file may import its
 * own concern's files or those of a concern on a lower layer, never one beside or above it. A concern missing
 * from the layers is reported too, so a new folder has to be given its place.
 */
export function layerViolations(graph: ImportGraph, layers: readonly (readonly string[])[]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((layer, i) => layer.forEach((c) => rank.set(c, i)));
  const problems = new Set<string>();
  for (const [from, targets] of graph) {
    const a = concernOf(from);
    if (!rank.has(a)) problems.add(`${a} (${from}) has no layer: add it to the layers`);
    for (const to of targets) {
      const b = concernOf(to);
      if (a === b || !rank.has(a) || !rank.has(b)) continue;
      if (rank.get(b)! >= rank.get(a)!) problems.add(`${from} imports ${to}: ${a} may not import ${b} (${rank.get(b) === rank.get(a) ? "same layer" : "a higher layer"})`);
    }
  }
  return [...problems].sort();
}
