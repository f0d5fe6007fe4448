// `scv acp`: SCV as an Agent Client Protocol (v1) agent on stdin/stdout, for editors (Zed, JetBrains, Neovim).
// Like `server --stdio`, it answers `initialize` before anything heavy loads: the first line, when it is a
// plain `initialize`, is answered from capabilities.ts, and the agent (zod, config, server, tools) loads after.
// EOF on stdin ends the agent, cancelling running turns.
import { writeSync } from "node:fs";
import { MAX_JSON_VALUES, MAX_LINE_BYTES, MAX_NESTING_DEPTH } from "../protocol/constants";
import { readLines, sinkLineWriter } from "../protocol/jsonl";
import type { AcpAgent } from "./agent";
import { type ClientOffers, earlyInitialize } from "./capabilities";

const log = (line: string) => void process.stderr.write(`scv acp: ${line}\n`);

export async function serveAcp(opts: { baseDepth: number }): Promise<void> {
  let lineWriter: ReturnType<typeof sinkLineWriter> | undefined;
  const writer = {
    send: (message: unknown) => (lineWriter ??= sinkLineWriter(Bun.stdout.writer())).send(message),
    idle: () => lineWriter?.idle() ?? Promise.resolve(),
  };
  let initialized: ClientOffers | undefined;
  let loading: Promise<AcpAgent> | undefined;
  const load = () =>
    (loading ??= import("./open").then((m) => m.openAcpAgent({ baseDepth: opts.baseDepth, send: writer.send, initialized, log })));
  const idleLoad = setTimeout(load, 30);

  let agent: AcpAgent | undefined;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearTimeout(idleLoad);
    const a = agent ?? (await load());
    // Running prompts end (cancelled) once their sessions close; then their replies can be written.
    await a.close();
    await Promise.allSettled([...inFlight]);
    await writer.idle();
  };
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void stop().then(() => process.exit(0)));

  for await (const ev of readLines(Bun.stdin.stream(), MAX_LINE_BYTES, { maxDepth: MAX_NESTING_DEPTH, maxValues: MAX_JSON_VALUES })) {
    if (!agent && !initialized && ev.kind === "line") {
      const early = earlyInitialize(ev.text);
      if (early) {
        initialized = early.offers;
        writeSync(1, `${JSON.stringify(early.reply)}\n`);
        setTimeout(load, 0);
        continue;
      }
    }
    agent ??= await load();
    if (ev.kind !== "line") {
      // A skipped line whose request id cannot be read leaves a request nobody will answer: close, saying why.
      const outcome = ev.kind === "oversize" ? await agent.peer.handleOversize(ev.bytes, ev.head, ev.tail) : await agent.peer.handleRejected(ev.bytes, ev.reason, ev.head, ev.tail);
      if (outcome === "close") {
        log(`closing: a ${ev.bytes}-byte line was skipped (${ev.kind === "oversize" ? `over the ${MAX_LINE_BYTES}-byte limit` : ev.reason}) and its request id could not be read, so it cannot be answered`);
        break;
      }
      continue;
    }
    const p = agent.peer.handleLine(ev.text);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await stop();
}
