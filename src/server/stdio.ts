// `scv server --stdio`: the protocol over this process's stdin/stdout. To answer `initialize` quickly, this
// module loads nothing heavy: it starts reading at once and loads the configuration check and the server
// (zod, providers, tools) in parallel. EOF on stdin ends the server cleanly, cancelling running turns.
import { MAX_JSON_VALUES, MAX_LINE_BYTES, MAX_NESTING_DEPTH, PROTOCOL_VERSION } from "../protocol/constants";
import { writeSync } from "node:fs";
import { initializeRequest } from "../protocol/early-initialize";
import { type LineEvent, readLines, sinkLineWriter } from "../protocol/jsonl";
import { VERSION } from "../version";
import type { ServerConnection } from "./server";

const GC_EVERY_BYTES = 4 * 1024 * 1024;
const GC_WAIT_MS = 100;

/** Hands an event to the connection; the line's text is taken out of the event, so only the request holds it. */
function dispatch(connection: ServerConnection, ev: LineEvent): Promise<void> {
  if (ev.kind === "oversize") return connection.handleOversize(ev.bytes);
  if (ev.kind === "rejected") return connection.handleRejected(ev.bytes, ev.reason);
  const text = ev.text;
  ev.text = "";
  return connection.handleLine(text);
}

export interface StdioOptions {
  baseDepth: number;
}

/**
 * The result for a well-formed `initialize` at the current version, or undefined for anything else, which the
 * full connection then validates and answers (with an error where due). Kept deliberately narrow.
 */
export function earlyInitializeReply(text: string): unknown {
  const req = initializeRequest(text);
  if (!req) return undefined;
  const p = req.params;
  if (p.protocol_version !== PROTOCOL_VERSION) return undefined;
  if (Object.keys(p).some((k) => k !== "protocol_version" && k !== "client")) return undefined;
  if (p.client !== undefined && (typeof p.client !== "object" || typeof p.client?.name !== "string")) return undefined;
  return { jsonrpc: "2.0", id: req.id, result: { protocol_version: PROTOCOL_VERSION, server: { name: "scv", version: VERSION } } };
}

export async function serveStdio(opts: StdioOptions): Promise<void> {
  // The Node stream behind process.stdout costs 15-30 ms to create, so nothing here uses it: the early
  // `initialize` reply is written straight to fd 1, and the rest goes through a Bun FileSink with backpressure.
  let lineWriter: ReturnType<typeof sinkLineWriter> | undefined;
  const writer = {
    send: (message: unknown) => (lineWriter ??= sinkLineWriter(Bun.stdout.writer())).send(message),
    idle: () => lineWriter?.idle() ?? Promise.resolve(),
  };
  // Loading evaluates modules on this thread, so it starts only after the first line was answered (or shortly
  // after start when no line comes), never ahead of the reply to `initialize`.
  let loadingPromise: Promise<ServerConnection> | undefined;
  const load = () =>
    (loadingPromise ??= import("./stdio-connection")
      .then((m) => m.openStdioConnection({ baseDepth: opts.baseDepth, send: writer.send }))
      .catch((e) => {
        // A configuration error ends the server before it serves any session.
        process.stderr.write(`scv server: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(78);
      }));
  const idleLoad = setTimeout(load, 30);

  let connection: ServerConnection | undefined;
  let initializedEarly = false;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let inputSinceGc = 0;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.allSettled([...inFlight]);
    clearTimeout(idleLoad);
    await (connection ?? (await load()))?.closeAll();
    await writer.idle();
  };
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(sig, () => void stop().then(() => process.exit(0)));
  }
  // Depth and value count are bounded on the raw bytes, so a hostile line costs no parse and no decoded copy.
  for await (const ev of readLines(Bun.stdin.stream(), MAX_LINE_BYTES, { maxDepth: MAX_NESTING_DEPTH, maxValues: MAX_JSON_VALUES })) {
    if (!connection && ev.kind === "line" && !initializedEarly) {
      const early = earlyInitializeReply(ev.text);
      if (early) {
        initializedEarly = true;
        writeSync(1, `${JSON.stringify(early)}\n`);
        setTimeout(load, 0);
        continue;
      }
    }
    if (!connection) {
      connection = await load();
      if (initializedEarly) connection.markInitialized();
    }
    // Requests run concurrently so an approval.resolve is read while a long request is pending.
    const size = ev.kind === "line" ? ev.text.length : ev.bytes;
    const p = dispatch(connection, ev);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    // Input leaves garbage (chunks, text, parsed copies) about as large as itself. After every GC_EVERY_BYTES
    // of it, once this request is answered (or has had a moment), collect before reading on, so big lines
    // cannot pile up faster than the collector's own pace.
    inputSinceGc += size;
    if (inputSinceGc > GC_EVERY_BYTES) {
      inputSinceGc = 0;
      await Promise.race([p, Bun.sleep(GC_WAIT_MS)]);
      Bun.gc(true);
    }
  }
  await stop();
}
