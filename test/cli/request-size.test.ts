// The first request's size (issue 42 item 3): "say hi" in a session offering every tool, with four coding agents
// installed (stand-ins on PATH), must be at most 12 KB of request body. The figure is printed, with what each
// tool's schema and the instructions take, so a growing schema shows where it grew.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text } from "../fake/model-server";

const fake = fakeModelForFile();
const BUDGET = 12 * 1024;

test(`"say hi" with every tool and four agents installed is at most ${BUDGET} bytes of request body`, async () => {
  const { env, workspace, home } = fakeHome(fake.url);
  const bin = join(home, "..", "bin");
  mkdirSync(bin);
  for (const agent of ["claude", "codex", "grok", "pi"]) {
    writeFileSync(join(bin, agent), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, agent), 0o755);
  }
  // A search key makes web_search one of the tools (no request is made with it).
  writeFileSync(join(home, "config.toml"), `${await Bun.file(join(home, "config.toml")).text()}\n[web]\nsearch = "brave"\nbrave_api_key = "test-key-not-real"\n`);
  fake.requests.length = 0;
  fake.queue(text("hi"));
  const r = await runBinary(["exec", "say hi"], { ...env, PATH: `${bin}:${env.PATH}` }, workspace);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const body = fake.requests[0]!.body;
  const size = Buffer.byteLength(JSON.stringify(body));
  const tools: { name: string }[] = body.tools;
  const sizes = tools.map((t) => `${t.name} ${Buffer.byteLength(JSON.stringify(t))}`).join(", ");
  console.log(`first request: ${size} bytes (budget ${BUDGET}); ${tools.length} tools, ${Buffer.byteLength(JSON.stringify(tools))} bytes: ${sizes}; instructions ${Buffer.byteLength(body.instructions)} bytes`);
  for (const name of ["read", "write", "edit", "bash", "grep", "glob", "memory", "web_search", "web_fetch", "agent"]) expect(tools.map((t) => t.name)).toContain(name);
  expect(body.instructions).toContain("claude");
  if (process.env.DUMP_TOOLS) await Bun.write(process.env.DUMP_TOOLS, JSON.stringify(body, null, 1));
  expect(size).toBeLessThanOrEqual(BUDGET);
});
