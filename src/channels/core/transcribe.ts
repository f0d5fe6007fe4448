// Voice to text for every channel ([transcription]): an OpenAI-compatible `POST <base_url>/audio/transcriptions`
// (multipart: file, model, response_format=json → {"text": …}) of a provider profile, or a local command the
// user names (`{file}` replaced with the audio's path) whose standard output is the text. Bounded by size and
// time; every failure is a sentence the person and the model can read, with the key never in it.
import { statSync } from "node:fs";
import { basename } from "node:path";
import { resolveApiKey } from "../../config/load";
import type { Config, TranscriptionConfig } from "../../config/schema";
import { readBoundedBytes } from "../../fs/safe-read";
import { scrubKnown } from "../../text/scrub";
import { ellipsize } from "../../text/cut";
import type { QueuedInbound } from "./inbound";
import { capInbound, heardNotice } from "./messages";

export type Transcript = { text: string } | { error: string };

/** The most text kept of a transcript (the core cuts a transcript to 16 KiB anyway). */
const MAX_TEXT_BYTES = 64 * 1024;

/** A file that is audio by its first bytes: Ogg (Opus), MP3 (ID3 or a frame sync), RIFF/WAVE, MP4/M4A, WebM, AMR, FLAC, SILK. */
export function looksLikeAudio(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 16));
  const ascii = head.toString("latin1");
  if (ascii.startsWith("OggS") || ascii.startsWith("ID3") || ascii.startsWith("fLaC") || ascii.startsWith("#!AMR") || ascii.includes("#!SILK")) return true;
  if (ascii.startsWith("RIFF") && ascii.slice(8, 12) === "WAVE") return true;
  if (ascii.slice(4, 8) === "ftyp") return true;
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return true; // EBML (WebM)
  if (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0) return true; // an MPEG audio frame
  return false;
}

export async function transcribe(config: Config, env: NodeJS.ProcessEnv, path: string): Promise<Transcript> {
  const t = config.transcription;
  if (!t) return { error: "no [transcription] is configured" };
  const max = t.max_mb * 1_000_000;
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    return { error: `the audio file cannot be read (${(e as Error).message})` };
  }
  if (size > max) return { error: `the audio is ${(size / 1e6).toFixed(1)} MB, over the ${t.max_mb} MB limit ([transcription] max_mb)` };
  let bytes: Buffer;
  try {
    bytes = readBoundedBytes(path, { what: "audio file", maxBytes: Math.max(max, 1), followSymlink: false });
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (!looksLikeAudio(bytes)) return { error: "the file is not audio SCV recognizes (not Ogg/Opus, MP3, WAV, M4A, WebM, AMR, FLAC or SILK)" };
  const result = t.command ? await byCommand(t, path) : await byEndpoint(t, config, env, bytes, basename(path));
  if ("text" in result && !result.text.trim()) return { error: "the transcription came back empty (silence, or speech it could not make out)" };
  return "text" in result ? { text: cap(result.text.trim()) } : result;
}

function cap(text: string): string {
  return Buffer.byteLength(text) <= MAX_TEXT_BYTES ? text : Buffer.from(text).subarray(0, MAX_TEXT_BYTES).toString("utf8").replace(/\uFFFD$/, "");
}

async function byEndpoint(t: TranscriptionConfig, config: Config, env: NodeJS.ProcessEnv, bytes: Buffer, name: string): Promise<Transcript> {
  const profile = config.providers[t.provider!];
  if (!profile) return { error: `[transcription] provider names no profile "${t.provider}"` };
  const key = resolveApiKey(profile, env);
  const url = `${profile.base_url.replace(/\/+$/, "")}/audio/transcriptions`;
  const form = new FormData();
  form.append("file", new Blob([bytes]), name);
  form.append("model", t.model);
  form.append("response_format", "json");
  if (t.language) form.append("language", t.language);
  const secrets = [key, ...Object.values(profile.headers)].filter((s): s is string => !!s);
  const clean = (s: string) => ellipsize(scrubKnown(s, secrets), 300);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { ...profile.headers, ...(key ? { Authorization: `Bearer ${key}` } : {}) },
      body: form,
      signal: AbortSignal.timeout(t.timeout_seconds * 1000),
      redirect: "manual",
    });
    const body = await res.text();
    if (!res.ok) {
      let said = body;
      try {
        said = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? body;
      } catch {}
      return { error: `the transcription endpoint answered HTTP ${res.status}: ${clean(said)}` };
    }
    const text = (JSON.parse(body) as { text?: unknown }).text;
    return typeof text === "string" ? { text } : { error: "the transcription endpoint answered without a text field" };
  } catch (e) {
    const err = e as Error;
    if (err.name === "TimeoutError") return { error: `the transcription endpoint did not answer within ${t.timeout_seconds} s` };
    if (err instanceof SyntaxError) return { error: "the transcription endpoint answered something that is not JSON" };
    return { error: `cannot reach the transcription endpoint at ${new URL(url).host}: ${clean(err.message)}` };
  }
}

async function byCommand(t: TranscriptionConfig, path: string): Promise<Transcript> {
  const argv = t.command!.map((a) => a.split("{file}").join(path));
  if (!t.command!.some((a) => a.includes("{file}"))) argv.push(path);
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    proc = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  } catch (e) {
    return { error: `the transcription command ${argv[0]} could not start: ${(e as Error).message}` };
  }
  let timedOut = false;
  let giveUp: (v: undefined) => void = () => {};
  const gaveUp = new Promise<undefined>((resolve) => (giveUp = resolve));
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
    setTimeout(() => giveUp(undefined), 1000).unref?.(); // a child of it that keeps the pipes open is not waited for
  }, t.timeout_seconds * 1000);
  try {
    const done = await Promise.race([Promise.all([bounded(proc.stdout, MAX_TEXT_BYTES), bounded(proc.stderr, 4096), proc.exited]), gaveUp]);
    if (timedOut || !done) return { error: `the transcription command did not finish within ${t.timeout_seconds} s` };
    const [out, err, code] = done;
    if (code !== 0) return { error: `the transcription command exited with status ${code}${err.trim() ? `: ${ellipsize(err.trim(), 300)}` : ""}` };
    return { text: out };
  } finally {
    clearTimeout(timer);
  }
}

/** A stream read to its end, keeping at most `max` bytes. */
async function bounded(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    if (size < max) chunks.push(chunk.subarray(0, max - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Transcribes a queued voice message (when [transcription] is set), noting the outcome on the record (the caller
 * saves it); returns what the person is shown (`heard: …`, or why not), or nothing when transcription is off.
 */
export async function hearVoice(record: QueuedInbound, config: Config, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<string | undefined> {
  const voice = record.voice!;
  if (!config.transcription) {
    voice.done = "off";
    return undefined;
  }
  const result = voice.path ? await transcribe(config, env, voice.path) : { error: "the audio file was not saved" };
  if ("text" in result) {
    voice.done = "text";
    record.transcript = capInbound({ id: "", conversation: "", from: "", direct: true, text: "", files: [], transcript: result.text }).transcript;
  } else {
    voice.done = "failed";
    voice.error = result.error;
    log(`message ${record.id}: ${result.error}`);
  }
  return heardNotice(voice, record.transcript);
}
