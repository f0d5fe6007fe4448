import { defineCommand } from "./command";

export default defineCommand({
  meta: { name: "server", description: "Serve the client protocol (JSON-RPC 2.0, one object per line); see docs/protocol.md" },
  args: { stdio: { type: "boolean", description: "speak the protocol on stdin/stdout", required: true } },
  async run({ args }) {
    if (!args.stdio) {
      process.stderr.write("scv server: only --stdio is available; run `scv server --stdio`\n");
      process.exit(2);
    }
    const { runStdioServer } = await import("./server-stdio");
    await runStdioServer();
  },
});
