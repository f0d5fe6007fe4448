// Builds dist/scv: one compiled binary holding the daemon, the stdio server and the CLI.
// The binary must not pick up .env or bunfig.toml from the user's working directory.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json";

const root = join(import.meta.dir, "..");
const outfile = join(root, "dist", "scv");
const version = process.env.SCV_BUILD_VERSION ?? pkg.version;
mkdirSync(join(root, "dist"), { recursive: true });

// The bytecode that start-up runs (recorded by scripts/bytecode-order.ts) is laid out together at the front of the
// binary: a nested SCV child reaches its first model request about 10% sooner. Most important start first.
const orderFiles = ["server-stdio", "exec"].map((n) => join(root, "scripts", "bytecode-order", `${n}.txt`)).filter((f) => existsSync(f));

/** How much more reluctant to compile the JIT is at start (JavaScriptCore's tier-up thresholds times this). */
const START_JIT_POLICY = 4;

function build(bytecode: boolean, ordered = bytecode) {
  const argv = [
    process.execPath,
    "build",
    "--compile",
    "--minify",
    ...(bytecode ? ["--bytecode", "--format=esm"] : []),
    ...(ordered && orderFiles.length ? [`--bytecode-order=${orderFiles.join(",")}`] : []),
    // The JIT holds back while start-up code runs once (main.ts restores the normal policy after a second):
    // compiling that code only competes with it for the CPU. About 5% off a nested child's first request.
    `--compile-jit-policy=${START_JIT_POLICY}`,
    // Code splitting keeps each subcommand in its own chunk, so start-up loads only what it runs.
    "--splitting",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--define",
    `SCV_VERSION=${JSON.stringify(version)}`,
    "--outfile",
    outfile,
    join(root, "src", "cli", "main.ts"),
  ];
  const env = { ...process.env };
  delete env.BUN_OPTIONS;
  delete env.BUN_BE_BUN;
  return Bun.spawnSync(argv, { cwd: root, env, stdout: "pipe", stderr: "pipe" });
}

let result = build(true);
if (!result.success && orderFiles.length) {
  // The layout is only a start-up optimisation too: a profile the bundler cannot use must not stop the build.
  process.stderr.write(`bytecode layout from scripts/bytecode-order failed, building without it:\n${result.stderr.toString()}\n`);
  result = build(true, false);
}
if (!result.success) {
  // Bytecode is only a start-up optimisation; fall back rather than fail the build.
  process.stderr.write(`bytecode build failed, building without it:\n${result.stderr.toString()}\n`);
  result = build(false);
}
if (!result.success) {
  process.stderr.write(result.stderr.toString());
  process.exit(1);
}

const smoke = Bun.spawnSync([outfile, "--version"], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
const printed = smoke.stdout.toString().trim();
if (!smoke.success || printed !== `scv ${version}`) {
  process.stderr.write(`smoke test failed: dist/scv --version printed "${printed}" ${smoke.stderr.toString()}\n`);
  process.exit(1);
}
process.stdout.write(`built ${outfile} (${printed})\n`);
