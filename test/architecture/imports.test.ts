import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findCycles, importGraphOf, layerViolations, readImportGraph } from "./import-graph";
import { FLOOR_LAYERS, LAYERS } from "./layers";

const src = join(import.meta.dir, "..", "..", "src");

describe("the import graph of src/", () => {
  const graph = readImportGraph(src);

  test("is read: the CLI reaches the server, the server the tools, the tools the floor", () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get("cli/main.ts")?.has("version.ts")).toBe(true);
    expect(graph.get("tools/tool.ts")?.has("errors.ts")).toBe(true);
    expect(graph.get("agents/run.ts")?.has("agents/nested/run.ts")).toBe(true); // a dynamic import counts
  });

  test("has no import circle between files", () => {
    expect(findCycles(graph).map((c) => c.join(" -> "))).toEqual([]);
  });

  test("imports only point down the layers", () => {
    expect(layerViolations(graph, LAYERS)).toEqual([]);
  });

  test("the floor imports no concern folder", () => {
    const floor = new Set(LAYERS.slice(0, FLOOR_LAYERS).flat());
    const up = [...graph].flatMap(([from, targets]) =>
      floor.has(from.split("/")[0]!.replace(/\.ts$/, "")) ? [...targets].filter((t) => !floor.has(t.split("/")[0]!.replace(/\.ts$/, ""))).map((t) => `${from} -> ${t}`) : [],
    );
    expect(up).toEqual([]);
  });

  test("the session contract costs nothing at run time: src/scope.ts imports types only", () => {
    const imports = readFileSync(join(src, "scope.ts"), "utf8").match(/^import .*$/gm) ?? [];
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((line) => !line.startsWith("import type "))).toEqual([]);
  });
});

describe("the checks can fail", () => {
  const layers = [["floor"], ["low"], ["high"]];
  const sources = new Map([
    ["floor/a.ts", `export const a = 1;`],
    ["low/b.ts", `import { a } from "../floor/a";\nimport { c } from "./c";\nexport const b = a;`],
    ["low/c.ts", `export { b } from "./b";\nexport const c = 2;`],
    ["high/d.ts", `import type { b } from "../low/b";\n// import { nothing } from "../floor/a";\nexport const d = () => import("../floor/a");`],
    ["floor/up.ts", `const high = require("../high/d");`],
    ["stray/e.ts", `import "../low/c.ts";`],
  ]);
  const graph = importGraphOf(sources);

  test("every kind of import is an edge; a commented-out one is not", () => {
    expect([...graph.get("low/c.ts")!]).toEqual(["low/b.ts"]);
    expect([...graph.get("high/d.ts")!].sort()).toEqual(["floor/a.ts", "low/b.ts"]);
    expect([...graph.get("floor/up.ts")!]).toEqual(["high/d.ts"]);
    expect([...graph.get("stray/e.ts")!]).toEqual(["low/c.ts"]);
  });

  test("a circle is found", () => {
    expect(findCycles(graph).map((c) => c.join(" -> "))).toEqual(["low/b.ts -> low/c.ts -> low/b.ts"]);
  });

  test("an upward import and a concern without a layer are found", () => {
    expect(layerViolations(graph, layers)).toEqual([
      "floor/up.ts imports high/d.ts: floor may not import high (a higher layer)",
      "stray (stray/e.ts) has no layer: add it to the layers",
    ]);
    expect(layerViolations(graph, [["floor", "low", "high", "stray"]])).toContain("low/b.ts imports floor/a.ts: low may not import floor (same layer)");
  });
});
