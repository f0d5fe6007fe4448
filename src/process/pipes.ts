// The child's stdio ends we keep: output read ends pumped into captures, and an optional stdin write end.
// Both are real pipes from pipe2 (Bun's "pipe" is a socketpair, where `>/dev/stdout` fails with ENXIO).
import { closeSync, writeSync } from "node:fs";
import { setNonBlocking } from "./libc";

/** Reads one pipe to EOF, handing each chunk on; `finish` bounds how long we wait for EOF. */
export class OutputPump {
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
  private readonly done: Promise<void>;
  private closed = false;

  constructor(
    private readonly fd: number,
    onChunk: (chunk: Uint8Array) => void,
  ) {
    // Bun.file(fd) does not own the fd: we close it ourselves in finish().
    const reader = Bun.file(fd).stream().getReader();
    this.reader = reader;
    this.done = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          if (value.length) onChunk(value);
        }
      } catch {
        // a read error ends the stream like EOF
      }
    })();
  }

  /** Waits up to `drainMs` for EOF, then stops reading; closes the fd. True when EOF arrived in time. */
  async finish(drainMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), drainMs)));
    const drained = await Promise.race([this.done.then(() => true as const), timedOut]);
    clearTimeout(timer);
    if (!drained) {
      // A descendant we could not stop still holds the write end: stop waiting for it.
      await this.reader.cancel().catch(() => {});
      await this.done;
    }
    this.close();
    return drained;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeQuietly(this.fd);
  }
}

/**
 * The write end of the child's stdin pipe. Non-blocking, so a child that never reads cannot block a thread:
 * a full pipe is retried on a short timer. Writes are serialised; EPIPE (child gone) rejects the write.
 */
export class StdinWriter {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly fd: number) {
    setNonBlocking(fd);
  }

  write(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const next = this.queue.then(() => this.writeAll(bytes));
    this.queue = next.catch(() => {}); // the writer gets the failure through `next`; the queue only orders
    return next;
  }

  /**
   * Writes `data` and closes stdin: what the pipe takes now synchronously (the child can read it at once), the
   * rest as `write` does.
   */
  writeAndEnd(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let off = 0;
    try {
      off = writeSync(this.fd, bytes, 0, bytes.length);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "EAGAIN" && code !== "EWOULDBLOCK") {
        this.close();
        return Promise.reject(new Error(code === "EPIPE" ? "stdin is closed: the process no longer reads it" : `stdin write failed: ${code ?? e}`));
      }
    }
    if (off < bytes.length) void this.write(bytes.subarray(off)).catch(() => {});
    return this.end();
  }

  /** Closes stdin after pending writes, so the child reads EOF. */
  end(): Promise<void> {
    const next = this.queue.then(() => this.close());
    this.queue = next;
    return next;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeQuietly(this.fd);
  }

  private async writeAll(bytes: Uint8Array): Promise<void> {
    let off = 0;
    let wait = 1;
    while (off < bytes.length) {
      if (this.closed) throw new Error("stdin is closed");
      try {
        off += writeSync(this.fd, bytes, off, bytes.length - off);
        wait = 1;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== "EAGAIN" && code !== "EWOULDBLOCK") {
          throw new Error(code === "EPIPE" ? "stdin is closed: the process no longer reads it" : `stdin write failed: ${code ?? e}`);
        }
        await Bun.sleep(wait);
        wait = Math.min(wait * 2, 20);
      }
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
