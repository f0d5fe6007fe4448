import { defineCommand } from "citty";
import { ConfigError, loadConfig } from "../config/load";

export default defineCommand({
  meta: { name: "server", description: "Serve the client protocol (JSON-RPC 2.0, one object per line); see docs/protocol.md" },
  args: { stdio: { type: "boolean", description: "speak the protocol on stdin/stdout", required: true } },
  async run({ args }) {
    if (!args.stdio) {
      process.stderr.write("scv server: only --stdio is available; run `scv server --stdio`\n");
      process.exit(2);
    }
    try {
      loadConfig({ cwd: process.cwd() });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      process.stderr.write(`scv server: configuration error, not starting:\n${e.message}\n`);
      process.exit(78);
    }
    const { serveStdio } = await import("../server/stdio");
    await serveStdio({ baseDepth: Number(process.env.SCV_DELEGATION_DEPTH ?? 0) || 0 });
    process.exit(0);
  },
});
