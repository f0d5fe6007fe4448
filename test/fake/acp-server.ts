// A stand-in ACP v1 agent (claude-agent-acp, codex-acp, `grok agent stdio`, `dsh --profile acp`), run as a real
// child through acp-agent.sh, speaking JSON-RPC 2.0 over stdio with the shapes the real adapters send
// (see shared reference agent-cli-formats.md §4-6). argv[2] is the name it was started as, which picks the
// flavour: Claude's modes and options, codex-acp's, Grok's (no modes), or DeepSeek Harness's (none).
//
// Each prompt's text is a JSON script: {"steps":[...], "stop":"end_turn", "usage":{...}}. Steps:
//   {"say":"text"}  {"informational":"text"}  {"thought":"text"}  {"sleep":ms}
//   {"tool":{toolCallId,title,kind,status,...}}  {"toolUpdate":{...}}  {"plan":[{content,status}]}
//   {"ask":{title,kind,locations?,content?,rawInput?,options?}}  → session/request_permission; says
//                                            "permission: <optionId|cancelled>"
//   {"request":"fs/read_text_file"}           → says "<method>: <error code or ok>"
//   {"flood":{"bytes":N,"chunk":K}}  N bytes of message text in K-byte chunks with no newline (output backpressure kept)
//   {"waitCancel":true}  waits for session/cancel, then stops "cancelled"
//   {"hang":true}        ignores session/cancel and never answers
//   {"exit":3}           writes a stderr line and exits mid-turn
//   {"error":{code,message,data?}}  answers the prompt with a JSON-RPC error
// Knobs (environment): FAKE_ACP_LOG dir (<pid>.start.json and <pid>.jsonl of every message received),
// FAKE_ACP_PROTOCOL (version answered), FAKE_ACP_AUTH=required (session/new fails), FAKE_ACP_ROOT=1
// (bypassPermissions refused unless IS_SANDBOX=1), FAKE_ACP_IGNORE_EOF=1, FAKE_ACP_STDERR (written at start).
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const flavour = (process.argv[2] ?? "").replace(/^.*\//, "");
const args = process.argv.slice(3);
const env = process.env;
const log = env.FAKE_ACP_LOG;
if (log) writeFileSync(join(log, `${process.pid}.start.json`), JSON.stringify({ flavour, args, cwd: process.cwd(), env, pid: process.pid }));
if (env.FAKE_ACP_STDERR) process.stderr.write(`${env.FAKE_ACP_STDERR}\n`);

type Json = Record<string, unknown>;
const send = (m: Json): void => void process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
let nextId = flavour === "codex-acp" ? 0 : 100;
const pending = new Map<string | number, (m: Json) => void>();
function request(method: string, params: Json): Promise<Json> {
  // Zed's codex-acp sends string IDs; the others numbers.
  const id = flavour === "codex-acp" ? `5cd91353-${nextId++}` : nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    send({ id, method, params });
  });
}

const sessions = new Map<string, { mode?: string; config: Json[]; cancelled: boolean; onCancel?: () => void }>();

function flavourSession(): { modes?: Json; configOptions: Json[] } {
  const select = (id: string, category: string, values: string[]) => ({
    id,
    name: id,
    category,
    type: "select",
    currentValue: values[0],
    options: values.map((value) => ({ value, name: value })),
  });
  if (flavour === "claude-agent-acp") {
    const ids = ["default", "acceptEdits", "plan", "auto", "bypassPermissions"];
    return {
      modes: { currentModeId: "auto", availableModes: ids.map((id) => ({ id, name: id })) },
      configOptions: [select("mode", "mode", ids), select("model", "model", ["default", "opus", "sonnet", "haiku"]), select("effort", "thought_level", ["default", "low", "medium", "high", "xhigh", "max"])],
    };
  }
  if (flavour === "codex-acp") {
    const ids = ["read-only", "workspace-write", "agent", "agent-full-access"];
    return {
      modes: { currentModeId: "agent", availableModes: ids.map((id) => ({ id, name: id })) },
      configOptions: [
        select("mode", "mode", ids),
        { id: "model", name: "Model", category: "model", type: "select", currentValue: "gpt-5.5", options: [{ group: "openai", name: "OpenAI", options: [{ value: "gpt-5.5", name: "GPT-5.5" }, { value: "gpt-5.4", name: "GPT-5.4" }] }] },
        select("reasoning_effort", "thought_level", ["low", "medium", "high", "xhigh"]),
      ],
    };
  }
  if (flavour === "grok") return { configOptions: [select("model", "model", ["grok-build", "grok-4"])] };
  return { configOptions: [] };
}

async function handle(m: Json): Promise<void> {
  const id = m.id as string | number | undefined;
  const method = m.method as string | undefined;
  const params = (m.params ?? {}) as Json;
  if (method === undefined) {
    if (id !== undefined) pending.get(id)?.(m), pending.delete(id);
    return;
  }
  const reply = (result: Json) => send({ id, result });
  const fail = (code: number, message: string, data?: unknown) => send({ id, error: { code, message, ...(data ? { data } : {}) } });
  switch (method) {
    case "initialize":
      return reply({
        protocolVersion: Number(env.FAKE_ACP_PROTOCOL ?? 1),
        agentCapabilities: { loadSession: true, promptCapabilities: { image: true } },
        ...(flavour === "grok" ? {} : { agentInfo: { name: `fake-${flavour}`, version: "0.0.1" } }),
        authMethods: [],
      });
    case "session/new": {
      if (env.FAKE_ACP_AUTH === "required") return fail(-32000, "Authentication required");
      if (typeof params.cwd !== "string" || !params.cwd.startsWith("/")) return fail(-32602, "cwd must be absolute");
      const sessionId = crypto.randomUUID();
      const shape = flavourSession();
      sessions.set(sessionId, { mode: (shape.modes as Json | undefined)?.currentModeId as string, config: shape.configOptions, cancelled: false });
      return reply({ sessionId, ...shape });
    }
    case "session/set_mode": {
      const s = sessions.get(params.sessionId as string);
      if (!s) return fail(-32602, "unknown session");
      if (env.FAKE_ACP_ROOT === "1" && params.modeId === "bypassPermissions" && env.IS_SANDBOX !== "1") {
        return fail(-32603, "Internal error: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons", { startupFailureReason: "bypass_root" });
      }
      s.mode = params.modeId as string;
      return reply({});
    }
    case "session/set_config_option": {
      const s = sessions.get(params.sessionId as string);
      const option = s?.config.find((o) => o.id === params.configId);
      if (!s || !option) return fail(-32602, `unknown config option ${String(params.configId)}`);
      option.currentValue = params.value;
      return reply({ configOptions: s.config });
    }
    case "session/prompt":
      return void prompt(id!, params);
    case "session/cancel": {
      const s = sessions.get(params.sessionId as string);
      if (s) {
        s.cancelled = true;
        s.onCancel?.();
      }
      return;
    }
    default:
      if (id !== undefined) fail(-32601, "Method not found");
  }
}

async function prompt(id: string | number, params: Json): Promise<void> {
  const sessionId = params.sessionId as string;
  const s = sessions.get(sessionId);
  if (!s) return send({ id, error: { code: -32602, message: "unknown session" } });
  s.cancelled = false;
  const text = ((params.prompt as Json[])?.[0]?.text as string) ?? "";
  let script: { steps?: Json[]; stop?: string; usage?: Json };
  try {
    script = JSON.parse(text);
  } catch {
    script = { steps: [{ say: `echo: ${text}` }] };
  }
  const update = (u: Json) => send({ method: "session/update", params: { sessionId, update: u } });
  const say = (t: string, meta?: Json) => update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t }, ...(meta ? { _meta: meta } : {}) });
  for (const step of script.steps ?? []) {
    if (s.cancelled) break;
    if (typeof step.say === "string") say(step.say);
    if (typeof step.informational === "string") say(step.informational, { claudeCode: { kind: "informational" } });
    if (typeof step.thought === "string") update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: step.thought } });
    if (step.tool) update({ sessionUpdate: "tool_call", ...(step.tool as Json) });
    if (step.toolUpdate) update({ sessionUpdate: "tool_call_update", ...(step.toolUpdate as Json) });
    if (step.plan) update({ sessionUpdate: "plan", entries: step.plan });
    if (typeof step.sleep === "number") await Bun.sleep(step.sleep);
    if (step.flood) await flood(sessionId, step.flood as { bytes: number; chunk?: number });
    if (step.ask) {
      const ask = step.ask as Json;
      const options = (ask.options as Json[]) ?? [
        { optionId: "allow-once", name: "Yes", kind: "allow_once" },
        { optionId: "allow-always", name: "Always", kind: "allow_always" },
        { optionId: "reject", name: "No", kind: "reject_once" },
      ];
      const answer = await request("session/request_permission", {
        sessionId,
        toolCall: {
          toolCallId: `perm-${Date.now()}`,
          title: ask.title,
          kind: ask.kind,
          status: "pending",
          locations: ask.locations ?? [],
          ...(ask.content ? { content: ask.content } : {}),
          ...(ask.rawInput ? { rawInput: ask.rawInput } : {}),
        },
        options,
      });
      const outcome = ((answer.result as Json)?.outcome ?? {}) as Json;
      say(`permission: ${outcome.outcome === "selected" ? String(outcome.optionId) : String(outcome.outcome)}\n`);
    }
    if (typeof step.request === "string") {
      const answer = await request(step.request, { sessionId, path: "/etc/hostname" });
      const error = answer.error as Json | undefined;
      say(`${step.request}: ${error ? String(error.code) : "ok"}\n`);
    }
    if (step.waitCancel && !s.cancelled) await new Promise<void>((r) => (s.onCancel = r));
    if (step.hang) return; // never answers, ignores session/cancel
    if (typeof step.exit === "number") {
      process.stderr.write("fake agent: crashed mid-turn\n");
      process.exit(step.exit);
    }
    if (step.error) return send({ id, error: step.error });
  }
  send({ id, result: { stopReason: s.cancelled ? "cancelled" : (script.stop ?? "end_turn"), ...(script.usage ? { usage: script.usage } : {}) } });
}

/** Streams `bytes` of "x" as message chunks, waiting whenever stdout's buffer is full. */
async function flood(sessionId: string, f: { bytes: number; chunk?: number }): Promise<void> {
  const chunk = f.chunk ?? 65536;
  const line = `${JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x".repeat(chunk) } } } })}\n`;
  for (let sent = 0; sent < f.bytes; sent += chunk) {
    if (!process.stdout.write(line)) await new Promise<void>((r) => process.stdout.once("drain", () => r()));
  }
}

let buffered = "";
process.stdin.on("data", (chunk: Buffer) => {
  buffered += chunk.toString("utf8");
  let nl = buffered.indexOf("\n");
  while (nl !== -1) {
    const line = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    nl = buffered.indexOf("\n");
    if (!line) continue;
    if (log) appendFileSync(join(log, `${process.pid}.jsonl`), `${line}\n`);
    void handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => {
  if (env.FAKE_ACP_IGNORE_EOF === "1") setInterval(() => {}, 1 << 30);
  else process.exit(0);
});
