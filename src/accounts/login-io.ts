// What sign-in commands share with the imports and the chat channels' logins: the context they run in, the
// refusal they raise, their terminal, and reading a key without echo or from a pipe.
import type { Config } from "../config/schema";

export interface LoginContext {
  scvHome: string;
  config: Config;
  /** The caller's environment; the agent sees it scrubbed, with its private home. */
  env: Readonly<Record<string, string | undefined>>;
}

/** A refusal the user can act on; `exitCode` 2 for usage mistakes. */
export class LoginError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "LoginError";
  }
}

export interface Io {
  stdin: NodeJS.ReadStream;
  stderr: { write(s: string): unknown };
  stdout: { write(s: string): unknown };
}

const MAX_KEY_BYTES = 1024;

export function checkKey(key: string): void {
  if (!key) throw new LoginError("no key given; type it at the prompt, or pipe it on stdin: `printf %s \"$KEY\" | scv agents login dsh`", 2);
  if (key.length > MAX_KEY_BYTES) throw new LoginError(`the key is ${key.length} characters long; an API key is at most ${MAX_KEY_BYTES}`, 2);
  if (!/^[\x21-\x7e]+$/.test(key)) throw new LoginError("the key must be one line of printable ASCII without spaces; check what was pasted", 2);
}

/** The first non-blank line of stdin (bounded), trimmed. */
export async function readPiped(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    chunks.push(b);
    size += b.length;
    if (size > 64 * 1024) throw new LoginError("stdin holds more than 64 KiB; pipe only the key", 2);
  }
  const line = Buffer.concat(chunks).toString("utf8").split(/\r?\n/).find((l) => l.trim() !== "");
  return line?.trim() ?? "";
}

/** Reads one line from a terminal in raw mode, so nothing typed or pasted is echoed. */
export function readHidden(io: Io, prompt: string): Promise<string> {
  const { stdin } = io;
  io.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (err?: LoginError) => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.setRawMode(false);
      stdin.pause();
      io.stderr.write("\n");
      if (err) reject(err);
      else resolve(value.trim());
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === "\r" || ch === "\n") return finish();
        if (ch === "\x03") return finish(new LoginError("cancelled", 130));
        if (ch === "\x04") return value ? finish() : finish(new LoginError("cancelled: no key typed", 130));
        if (ch === "\x7f" || ch === "\b") value = value.slice(0, -1);
        else if (ch === "\x15") value = "";
        else if (ch >= " ") value += ch;
      }
    };
    const onEnd = () => finish(value ? undefined : new LoginError("cancelled: no key typed", 130));
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
    stdin.once("end", onEnd);
  });
}
