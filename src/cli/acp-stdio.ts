// Entry for `scv acp`; main.ts calls it directly (without the argument parser) to keep start-up short.
import { serveAcp } from "../acp-agent/stdio";

export async function runAcpAgent(): Promise<never> {
  await serveAcp({ baseDepth: Number(process.env.SCV_DELEGATION_DEPTH ?? 0) || 0 });
  process.exit(0);
}
