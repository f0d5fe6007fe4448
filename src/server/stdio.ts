// `scv server --stdio`: the protocol over this process's stdin/stdout. EOF on stdin ends the server cleanly,
// cancelling running turns and closing sessions (which stops what they started).
import { readLines } from "../protocol/jsonl";
import { jsonLineWriter } from "../protocol/jsonl";
import { MAX_LINE_BYTES } from "../protocol/schema";
import { createServerConnection, type ServerOptions } from "./server";

export async function serveStdio(opts: Partial<ServerOptions> = {}): Promise<void> {
  const writer = jsonLineWriter(process.stdout);
  const connection = createServerConnection({ ...opts, send: writer.send });
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.allSettled([...inFlight]);
    await connection.closeAll();
    await writer.idle();
  };
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(sig, () => void stop().then(() => process.exit(0)));
  }
  for await (const ev of readLines(Bun.stdin.stream(), MAX_LINE_BYTES)) {
    // Requests run concurrently so an approval.resolve is read while a long request is pending.
    const p = ev.kind === "line" ? connection.handleLine(ev.text) : connection.handleOversize(ev.bytes);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await stop();
}
