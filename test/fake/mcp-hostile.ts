// A stand-in MCP server over stdio that misbehaves on purpose, for the bad-input cases no real server shows:
//   bun test/fake/mcp-hostile.ts MODE [--pid FILE] [--log FILE]
// MODE: exit (exits at once), silent (never answers initialize), version (answers with a protocol version no
// one speaks), invalid (answers initialize with a line that is not JSON), flood (floods notifications after
// initialize), well (behaves: tools `sleep` (never answers; logs notifications/cancelled), `huge` (a result of
// `mb` megabytes), `hello` (says hello)). `--pid` writes its pid; `--log` appends every message it receives;
// `--ignore-eof` keeps it running after its stdin closes.
import { appendFileSync, writeFileSync } from "node:fs";

const mode = process.argv[2] ?? "well";
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const pidFile = flag("--pid");
const logFile = flag("--log");
if (pidFile) writeFileSync(pidFile, String(process.pid));
if (mode === "exit") {
  process.stderr.write("hostile: giving up at once\n");
  process.exit(3);
}

const send = (message: unknown): void => void process.stdout.write(`${JSON.stringify(message)}\n`);
const TOOLS = [
  { name: "hello", description: "Says hello", inputSchema: { type: "object", properties: { who: { type: "string" } } } },
  { name: "sleep", description: "Never answers", inputSchema: { type: "object", properties: {} } },
  { name: "huge", description: "A result of mb megabytes", inputSchema: { type: "object", properties: { mb: { type: "number" } } } },
];

function answer(message: { id?: number | string; method?: string; params?: any }): void {
  if (logFile) appendFileSync(logFile, `${JSON.stringify(message)}\n`);
  if (message.method === "initialize") {
    if (mode === "silent") return;
    if (mode === "invalid") return void process.stdout.write("{this is not json\n");
    const protocolVersion = mode === "version" ? "1999-01-01" : message.params.protocolVersion;
    send({ jsonrpc: "2.0", id: message.id, result: { protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: "hostile", version: "0.0.1" } } });
    if (mode === "flood") {
      const note = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(100) } });
      const burst = `${`${note}\n`.repeat(1000)}`;
      const pump = () => process.stdout.write(burst, () => setImmediate(pump));
      pump();
    }
    return;
  }
  if (message.method === "tools/list") return send({ jsonrpc: "2.0", id: message.id, result: { tools: TOOLS } });
  if (message.method === "tools/call") {
    const { name, arguments: args } = message.params;
    if (name === "hello") return send({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: `hello ${args?.who ?? "world"}` }] } });
    if (name === "sleep") return; // never answers; notifications/cancelled lands in the log
    if (name === "huge") {
      const mb = Number(args?.mb ?? 100);
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text","text":"`;
      const chunk = "y".repeat(1024 * 1024);
      let left = mb;
      const next = () => {
        if (left-- > 0) process.stdout.write(chunk, next);
        else process.stdout.write(`"}]}}\n`);
      };
      process.stdout.write(head, next);
      return;
    }
  }
  if (message.id !== undefined) send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
}

let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk.toString();
  let nl: number;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim()) answer(JSON.parse(line));
  }
});
// --ignore-eof: keeps running when its client goes away (the kind of server that leaks if nobody stops it).
process.stdin.on("end", () => {
  if (!process.argv.includes("--ignore-eof")) process.exit(0);
  setInterval(() => {}, 1 << 30);
});
