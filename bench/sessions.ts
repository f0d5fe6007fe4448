// Session store costs. Run with `bun bench/sessions.ts`. Each figure is printed with a baseline measured in
// the same run:
//   append a turn (6 records as they happen)    vs  writing the same pre-serialized lines with writeSync
//   load a session of 1,000 turns               vs  reading the file and JSON.parse of every line
//   session.resume of 1,000 turns (in-process)  vs  session.start of a fresh session (target: adds < 50 ms)
//   list / search 10 sessions of 1,000 turns    (absolute figures)
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServerConnection } from "../src/server/server";
import { openSessionStore, type SessionRecorder } from "../src/sessions/index";
import { medianTime } from "./bare";

const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

const time = (fn: () => unknown, rounds = ROUNDS) => medianTime(fn, rounds);

const usage = { input_tokens: 1200, output_tokens: 300, cached_input_tokens: 800 };
/** One turn as the server writes it: prompt, a tool call with a 2 KB result, the reply. */
function turnRecords(n: number) {
  const turn = `t${n}`;
  const prompt = `question ${n}: please look at src/file${n}.ts and explain what the parser does there`;
  const reply = `The parser in src/file${n}.ts reads tokens and builds a tree. `.repeat(6);
  return [
    { type: "turn" as const, turn, prompt, origin: { kind: "user" } },
    { type: "item" as const, turn, item: { role: "user", content: prompt } },
    { type: "item" as const, turn, item: { role: "assistant", content: "", toolCalls: [{ id: `call_${n}`, name: "read", arguments: `{"path":"src/file${n}.ts"}` }] } },
    { type: "item" as const, turn, item: { role: "tool", callId: `call_${n}`, name: "read", output: "x".repeat(2048) } },
    { type: "item" as const, turn, item: { role: "assistant", content: reply } },
    { type: "turn_ended" as const, turn, status: "completed" as const, reply, usage },
  ];
}

function writeTurns(rec: SessionRecorder, from: number, count: number) {
  for (let n = from; n < from + count; n++) for (const r of turnRecords(n)) rec.append(r);
}

const root = mkdtempSync(join(tmpdir(), "scv-bench-sessions-"));
try {
  const home = join(root, "home");
  const workspace = join(root, "ws");
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace);
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "local"\n[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n`);
  const store = openSessionStore({ home });
  const header = { workspace, provider: "local", model: "m", tools: true };

  // Append: per turn, through the store (fdatasync at turn end included) and as bare writes of the same bytes.
  const rec = store.create(header);
  let next = 0;
  // The appends measured are the session's first turns, so there are never more of them than TURNS.
  const appendMs = await time(() => writeTurns(rec, next++, 1), Math.min(200, TURNS));
  writeTurns(rec, next, TURNS - next);
  rec.close();
  const rawFile = join(root, "raw.jsonl");
  const rawFd = openSync(rawFile, "a");
  let rawNext = 0;
  const rawMs = await time(() => {
    for (const r of turnRecords(rawNext++)) writeSync(rawFd, `${JSON.stringify({ ...r, at: Date.now() })}\n`);
  }, 200);
  closeSync(rawFd);

  const file = join(store.dir, `${rec.id}.jsonl`);
  const bytes = readFileSync(file).length;
  const loadMs = await time(() => store.load(rec.id));
  const parseMs = await time(() => {
    for (const line of readFileSync(file, "utf8").split("\n")) if (line) JSON.parse(line);
  });

  // Resume start-up against a fresh start, both through the in-process protocol connection (replies arrive
  // through `send`; the model is never called).
  const replies: any[] = [];
  const conn = createServerConnection({
    env: { ...process.env, SCV_HOME: home },
    sessions: store,
    modelClientFactory: () => ({ stream: async function* () {} }),
    send: async (m: any) => void replies.push(m),
  });
  let id = 1;
  const request = async (method: string, params: unknown) => {
    await conn.handleLine(JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }));
    const reply = replies.pop();
    if (reply.error) throw new Error(reply.error.message);
    return reply.result;
  };
  await request("initialize", { protocol_version: 3 });
  const startMs = await time(async () => {
    const s = await request("session.start", { cwd: workspace });
    await request("session.close", { session_id: s.session_id });
  });
  const resumeMs = await time(async () => {
    const s = await request("session.resume", { session_id: rec.id });
    if (s.turns.length !== TURNS) throw new Error(`resumed ${s.turns.length} turns, expected ${TURNS}`);
    await request("session.close", { session_id: s.session_id });
  });
  await conn.closeAll();

  // Listing and searching ten such sessions.
  for (let i = 0; i < 9; i++) {
    const r = store.create(header);
    writeTurns(r, 0, TURNS);
    r.close();
  }
  const listMs = await time(() => store.list(), 5);
  const searchMs = await time(() => store.search("parser file999", { limit: 10 }), 5);

  const fmt = (ms: number) => `${ms.toFixed(3)} ms`;
  console.log(`session of ${TURNS} turns: ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
  console.log(`append one turn (6 records):  ${fmt(appendMs)}   baseline bare writeSync ${fmt(rawMs)}   ratio ${(appendMs / rawMs).toFixed(2)}`);
  console.log(`load ${TURNS} turns:            ${fmt(loadMs)}   baseline read + JSON.parse ${fmt(parseMs)}   ratio ${(loadMs / parseMs).toFixed(2)}`);
  console.log(`session.resume of ${TURNS} turns: ${fmt(resumeMs)}   baseline session.start ${fmt(startMs)}   ratio ${(resumeMs / startMs).toFixed(2)}   adds ${fmt(resumeMs - startMs)} (target < 50 ms)`);
  console.log(`list 10 sessions of ${TURNS} turns: ${fmt(listMs)}; search them: ${fmt(searchMs)}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
