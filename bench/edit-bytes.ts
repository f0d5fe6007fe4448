// Request bytes of a one-line change to a 3,000-line file: with `edit` against with a whole-file `write`, through
// the compiled binary and the scripted model on 127.0.0.1. What the change adds to the next model request (the
// tool call's arguments and its result) is measured in each case; the prior read is the same for both and left out.
// Target: edit at least 20x smaller. Run: bun run build && bun bench/edit-bytes.ts
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel, text, toolCalls } from "../test/fake/model-server";

const BIN = join(import.meta.dir, "..", "dist", "scv");
if (!existsSync(BIN)) {
  console.log("bench/edit-bytes: dist/scv is missing; run `bun run build` first");
  process.exit(1);
}

const lines = Array.from({ length: 3000 }, (_, i) => `    const value${i + 1} = compute(${i + 1}, options); // line ${i + 1}`);
const before = `${lines.join("\n")}\n`;
const after = before.replace("const value1500 = compute(1500, options);", "const value1500 = compute(1500, options, true);");

const fake = await startFakeModel();
const root = mkdtempSync(join(tmpdir(), "scv-bench-edit-"));
try {
  /** Bytes the change's call and result add to the request after it. */
  async function changeBytes(call: { name: string; arguments: Record<string, unknown> }): Promise<number> {
    const home = join(root, `home-${call.name}`);
    const ws = join(root, `ws-${call.name}`);
    mkdirSync(home, { recursive: true });
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n`);
    writeFileSync(join(ws, "big.ts"), before);
    fake.queue(toolCalls([call]), text("done"));
    const first = fake.requests.length;
    const p = Bun.spawn([BIN, "exec", "--yes", "change line 1500"], { cwd: ws, env: { PATH: process.env.PATH!, HOME: root, SCV_HOME: home }, stdout: "ignore", stderr: "pipe" });
    if ((await p.exited) !== 0) throw new Error(await new Response(p.stderr).text());
    if (readFileSync(join(ws, "big.ts"), "utf8") !== after) throw new Error(`${call.name} did not make the change`);
    const [a, b] = fake.requests.slice(first, first + 2).map((r) => Buffer.byteLength(JSON.stringify(r.body)));
    return b! - a!;
  }
  const edit = await changeBytes({ name: "edit", arguments: { path: "big.ts", edits: [{ old_text: "compute(1500, options)", new_text: "compute(1500, options, true)" }] } });
  const write = await changeBytes({ name: "write", arguments: { path: "big.ts", content: after, mode: "replace" } });
  const ratio = write / edit;
  console.log(`file: 3000 lines, ${Buffer.byteLength(before)} bytes`);
  console.log(`write: the change adds ${write} bytes to the next request`);
  console.log(`edit:  the change adds ${edit} bytes to the next request`);
  console.log(`ratio: edit is ${ratio.toFixed(1)}x smaller (target >= 20x)  ${ratio >= 20 ? "OK" : "UNDER"}`);
} finally {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
