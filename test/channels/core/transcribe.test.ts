// Voice to text ([transcription]) on its own: the OpenAI-compatible endpoint (a fake on 127.0.0.1) and a local
// command, and every way it can fail: not audio, over the size cap, an HTTP error (the key never in the
// message), a timeout, a command that fails or hangs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../../../src/config/schema";
import { looksLikeAudio, transcribe } from "../../../src/channels/core/transcribe";
import { type FakeTranscriber, startFakeTranscriber } from "../../fake/transcription-server";

let dir: string;
let stt: FakeTranscriber;
const ogg = Buffer.concat([Buffer.from("OggS\u0000\u0002"), Buffer.alloc(2000, 7)]);
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "scv-stt-"));
  stt = await startFakeTranscriber();
  writeFileSync(join(dir, "voice.ogg"), ogg);
  writeFileSync(join(dir, "notes.txt"), "just some text, not audio at all");
});
afterAll(async () => {
  await stt.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = { model: "whisper-1", max_mb: 20, timeout_seconds: 5 };
function config(t: Record<string, unknown>, key = stt.key): Config {
  return { providers: { stt: { base_url: stt.url, api_key: key, headers: {} } }, transcription: { ...base, ...t } } as unknown as Config;
}
const env = {} as NodeJS.ProcessEnv;

test("the endpoint gets the file and the model, and its text comes back", async () => {
  stt.answers.push("  please send the report  ");
  expect(await transcribe(config({ provider: "stt", language: "en" }), env, join(dir, "voice.ogg"))).toEqual({ text: "please send the report" });
  expect(stt.requests.at(-1)).toEqual({ model: "whisper-1", file: "voice.ogg", size: ogg.length, auth: `Bearer ${stt.key}`, language: "en" });
});

test("failures are sentences: not audio, too large, an HTTP error without the key, empty text, a timeout", async () => {
  expect(looksLikeAudio(ogg)).toBe(true);
  expect(await transcribe(config({ provider: "stt" }), env, join(dir, "notes.txt"))).toEqual({ error: expect.stringContaining("not audio") });
  expect(await transcribe(config({ provider: "stt", max_mb: 0.001 }), env, join(dir, "voice.ogg"))).toEqual({ error: "the audio is 0.0 MB, over the 0.001 MB limit ([transcription] max_mb)" });
  const wrongKey = "sk-wrong-key-abcdefghijklmnop";
  const denied = await transcribe(config({ provider: "stt" }, wrongKey), env, join(dir, "voice.ogg"));
  expect(denied).toEqual({ error: expect.stringContaining("HTTP 401") });
  expect(JSON.stringify(denied)).not.toContain("abcdefghijklmnop");
  stt.answers.push([500, "The server had an error"]);
  expect(await transcribe(config({ provider: "stt" }), env, join(dir, "voice.ogg"))).toEqual({ error: "the transcription endpoint answered HTTP 500: The server had an error" });
  stt.answers.push("");
  expect(await transcribe(config({ provider: "stt" }), env, join(dir, "voice.ogg"))).toEqual({ error: expect.stringContaining("came back empty") });
  stt.hangMs = 3000;
  try {
    const started = Date.now();
    expect(await transcribe(config({ provider: "stt", timeout_seconds: 1 }), env, join(dir, "voice.ogg"))).toEqual({ error: "the transcription endpoint did not answer within 1 s" });
    expect(Date.now() - started).toBeLessThan(2900);
  } finally {
    stt.hangMs = 0;
  }
  expect(await transcribe({ providers: {} } as unknown as Config, env, join(dir, "voice.ogg"))).toEqual({ error: "no [transcription] is configured" });
});

test("a local command reads the file ({file}) and prints the text; a failing or hanging one is reported", async () => {
  const script = join(dir, "whisper.sh");
  writeFileSync(script, '#!/bin/sh\nif [ "$1" = "-f" ]; then head -c 4 "$2"; printf " heard from a file\\n"; exit 0; fi\nif [ "$1" = "hang" ]; then exec sleep 30; fi\necho "model not found" >&2; exit 3\n');
  chmodSync(script, 0o755);
  expect(await transcribe(config({ command: [script, "-f", "{file}"] }), env, join(dir, "voice.ogg"))).toEqual({ text: "OggS heard from a file" });
  expect(await transcribe(config({ command: [script, "--bad"] }), env, join(dir, "voice.ogg"))).toEqual({ error: "the transcription command exited with status 3: model not found" });
  const started = Date.now();
  expect(await transcribe(config({ command: [script, "hang"], timeout_seconds: 1 }), env, join(dir, "voice.ogg"))).toEqual({ error: "the transcription command did not finish within 1 s" });
  expect(Date.now() - started).toBeLessThan(20_000); // the 1 s limit, not the 30 s sleep
  expect(await transcribe(config({ command: [join(dir, "missing-program")] }), env, join(dir, "voice.ogg"))).toEqual({ error: expect.stringContaining("could not start") });
});
