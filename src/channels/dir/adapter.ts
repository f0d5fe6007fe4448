// The `dir` channel: a chat platform made of two directories, for scripts and tests. A message is a JSON file
// {"id","from","text","files":[paths]} written atomically into <path>/in/; SCV takes them in name order and
// removes each once it is durably queued. Every message SCV sends is <path>/out/<key>.json
// {"id","to","text","files","in_reply_to"} with its files copied beside it. See docs/channels.md.
import { closeSync, constants, copyFileSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, renameSync, writeSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { lazySchema } from "../../lazy-schema";
import { tryUnlink } from "../../fs/private-file";
import { MiB, readBoundedText } from "../../fs/safe-read";
import type { AdapterContext, ChannelAdapter, InboundFile, InboundMessage, OutboundMessage, SendResult } from "../core/adapter";
import { safeFileName } from "../core/media";

export const DirMessage = lazySchema((z) => z.object({
  id: z.string().min(1, "must be a non-empty string"),
  from: z.string().min(1, "must be a non-empty string"),
  text: z.string().default(""),
  files: z.array(z.string().min(1)).default([]),
  quote: z.string().optional(),
}));

export interface DirChannelOptions {
  path: string;
  owner: string;
  account: string;
  pollMs?: number;
}

const MAX_MESSAGE_BYTES = MiB;

export class DirAdapter implements ChannelAdapter {
  readonly kind = "dir";
  readonly account: string;
  readonly owner: string;
  readonly where: string;
  private readonly root: string;

  constructor(private readonly opts: DirChannelOptions) {
    this.account = opts.account;
    this.owner = opts.owner;
    this.root = resolve(opts.path);
    this.where = `path ${this.root}`;
  }

  ownerConversation(): string {
    return this.owner;
  }

  async connect(ctx: AdapterContext, signal: AbortSignal): Promise<void> {
    const inbox = join(this.root, "in");
    mkdirSync(inbox, { recursive: true, mode: 0o700 });
    mkdirSync(join(this.root, "out"), { recursive: true, mode: 0o700 });
    ctx.setState({ state: "connected" });
    while (!signal.aborted) {
      // Dot-files are writers' temporaries (write, then rename into place).
      const names = readdirSync(inbox).filter((n) => !n.startsWith(".")).sort();
      for (const name of names) {
        if (signal.aborted) break;
        const file = join(inbox, name);
        const message = this.parse(file, name, ctx);
        if (!message) continue;
        await ctx.receive(message); // durably queued (or a known duplicate) before the file goes
        tryUnlink(file);
      }
      await Bun.sleep(this.opts.pollMs ?? 200);
    }
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    const out = join(this.root, "out");
    const key = safeFileName(message.idempotencyKey);
    try {
      mkdirSync(out, { recursive: true, mode: 0o700 });
      const files = message.files.map((f, i) => {
        const copy = join(out, `${key}-${i + 1}-${safeFileName(f.name)}`);
        copyFileSync(f.path, copy);
        return copy;
      });
      const body = { id: message.idempotencyKey, to: message.conversation, text: message.text, files, ...(message.inReplyTo ? { in_reply_to: message.inReplyTo } : {}) };
      const tmp = join(out, `.${key}.${process.pid}.tmp`);
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, `${JSON.stringify(body)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      try {
        linkSync(tmp, join(out, `${key}.json`)); // never replaces: the same key twice is one message
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      } finally {
        tryUnlink(tmp);
      }
      return { status: "sent" };
    } catch (e) {
      return { status: "retry", error: `cannot write to ${out}: ${(e as Error).message}` };
    }
  }

  /** "Typing…" is a marker file <path>/typing/<conversation> while a turn runs. */
  async typing(conversation: string, on: boolean): Promise<void> {
    const dir = join(this.root, "typing");
    const marker = join(dir, safeFileName(conversation));
    if (!on) return void tryUnlink(marker);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    closeSync(openSync(marker, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  }

  /**
   * A file a message names: only a relative path inside this channel's folder, with no `..`; where it really
   * lies (symlinks resolved) is checked again by the core on the opened file (`within`).
   */
  private inboundFile(p: string): InboundFile {
    const name = p.split("/").pop() || "file";
    if (isAbsolute(p)) return { name, error: `refused: ${p} is an absolute path; name files relative to the channel folder ${this.root}` };
    if (p.split("/").includes("..")) return { name, error: `refused: ${p} leaves the channel folder (..); name files inside ${this.root}` };
    return { name, path: join(this.root, p), within: this.root };
  }

  /** A readable, valid message, or undefined after moving the file to <path>/rejected/ with the reason beside it. */
  private parse(file: string, name: string, ctx: AdapterContext): InboundMessage | undefined {
    let problem: string;
    try {
      const raw = JSON.parse(readBoundedText(file, { what: "dir channel message", maxBytes: MAX_MESSAGE_BYTES, followSymlink: false }));
      const parsed = DirMessage.safeParse(raw);
      if (parsed.success) {
        const m = parsed.data;
        return {
          id: m.id,
          conversation: m.from,
          from: m.from,
          direct: true,
          text: m.text,
          files: m.files.map((p) => this.inboundFile(p)),
          ...(m.quote ? { quote: m.quote } : {}),
        };
      }
      problem = `not a message: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}; write {"id","from","text","files":[paths]}`;
    } catch (e) {
      problem = e instanceof SyntaxError ? `not valid JSON (${e.message}); write {"id","from","text","files":[paths]}` : (e as Error).message;
    }
    const rejected = join(this.root, "rejected");
    try {
      mkdirSync(rejected, { recursive: true, mode: 0o700 });
      renameSync(file, join(rejected, name));
      const fd = openSync(join(rejected, `${name}.error.txt`), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, `${problem}\n`);
      closeSync(fd);
    } catch {
      tryUnlink(file);
    }
    ctx.log(`rejected ${name}: ${problem}`);
    return undefined;
  }
}
