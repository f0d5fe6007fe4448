// Entry for `scv server --stdio`; main.ts calls it directly (without the argument parser) to keep start-up short.
import { serveStdio } from "../server/stdio";

export async function runStdioServer(): Promise<never> {
  await serveStdio({ baseDepth: Number(process.env.SCV_DELEGATION_DEPTH ?? 0) || 0 });
  process.exit(0);
}
