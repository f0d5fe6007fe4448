// `bun run demo`: the real dist/scv runs one full turn with tool calls against the project's SCRIPTED model
// endpoint on 127.0.0.1, so anyone can watch SCV work without a key. Nothing leaves this machine.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const binary = join(root, "dist", "scv");
if (!existsSync(binary)) {
  console.error("dist/scv is missing: building it first (bun run build)");
  if (!Bun.spawnSync([process.execPath, "run", "build"], { cwd: root, stdio: ["inherit", "inherit", "inherit"] }).success) process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "scv-demo-"));
const home = join(dir, "scv-home");
const workspace = join(dir, "workspace");
mkdirSync(home, { recursive: true });
mkdirSync(workspace, { recursive: true });
writeFileSync(join(workspace, "TODO.md"), "- update the docs\n- release on Friday\n- fix the login bug (users are blocked!)\n");
writeFileSync(join(workspace, "README.md"), "# Demo project\n\nA tiny workspace for the SCV demo.\n");

const fake = Bun.spawn([process.execPath, join(root, "test", "fake", "model-server.ts"), "--script", join(import.meta.dir, "demo-script.json")], {
  stdout: "pipe",
  stderr: "inherit",
});
const reader = fake.stdout.getReader();
let first = "";
while (!first.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) break;
  first += new TextDecoder().decode(value);
}
const baseUrl = first.split("\n")[0]!.trim();
writeFileSync(join(home, "config.toml"), `[provider]\nactive = "demo"\n[providers.demo]\nbase_url = "${baseUrl}"\nmodel = "scripted-demo"\n`);

const prompt = "Look at this project's TODO list and write a prioritised plan to PLAN.md.";
console.log("=".repeat(78));
console.log("SCV demo: the model here is a SCRIPTED fake endpoint on 127.0.0.1 replaying");
console.log("scripts/demo-script.json. The tools (bash, read, write) are real and run in:");
console.log(`  ${workspace}`);
console.log(`Prompt: ${prompt}`);
console.log("=".repeat(78));
const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), SCV_HOME: home };
const run = Bun.spawn([binary, "exec", "--yes", prompt], { cwd: workspace, env, stdio: ["ignore", "inherit", "inherit"] });
const code = await run.exited;
fake.kill();
console.log("=".repeat(78));
if (existsSync(join(workspace, "PLAN.md"))) console.log(`PLAN.md as written by the write tool:\n${readFileSync(join(workspace, "PLAN.md"), "utf8")}`);
console.log(`scv exec exited with ${code}`);
rmSync(dir, { recursive: true, force: true }); // the throwaway workspace and SCV home: nothing is left behind
process.exit(code);
