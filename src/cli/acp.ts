// `scv acp`: SCV as an Agent Client Protocol agent on stdio, for editors. main.ts calls runAcpAgent directly
// (without the argument parser) to keep start-up short; the command below serves `scv acp --help`.
import { defineCommand } from "./command";

export async function runAcpAgent(): Promise<never> {
  const { serveAcp } = await import("../acp-agent/stdio");
  await serveAcp({ baseDepth: Number(process.env.SCV_DELEGATION_DEPTH ?? 0) || 0 });
  process.exit(0);
}

export default defineCommand({
  meta: { name: "acp", description: "Serve the Agent Client Protocol (v1) on stdin/stdout, for editors such as Zed; see docs/architecture.md" },
  async run() {
    await runAcpAgent();
  },
});
