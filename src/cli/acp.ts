// `scv acp --help` and the like; a plain `scv acp` is started by main.ts through acp-stdio.ts, skipping the parser.
import { defineCommand } from "./command";

export default defineCommand({
  meta: { name: "acp", description: "Serve the Agent Client Protocol (v1) on stdin/stdout, for editors such as Zed (see README, \"Use SCV from your editor\")" },
  async run() {
    const { runAcpAgent } = await import("./acp-stdio");
    await runAcpAgent();
  },
});
