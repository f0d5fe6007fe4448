// The dir channel through the real daemon process: owner vs other senders, queueing, commands, dedupe,
// crash recovery, retries, unprompted reports and a planned restart.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { hang, startFakeModel, text, toolCalls } from "../fake/model-server";
import { cleanupBridges, killDaemon, makeBridge, outMessages, sendMessage, startDaemon, waitFor, waitForOut, type Bridge } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
const inputText = (body: any): string => JSON.stringify(body.input ?? body.messages);
const inboxEmpty = (b: Bridge) => readdirSync(join(b.chat, "in")).length === 0;

/** Makes out/ unusable (a regular file where the directory should be), or usable again. */
function breakOut(b: Bridge, broken: boolean) {
  rmSync(join(b.chat, "out"), { recursive: true, force: true });
  if (broken) writeFileSync(join(b.chat, "out"), "not a directory");
  else mkdirSync(join(b.chat, "out"));
}

function deliveryRecords(b: Bridge): any[] {
  const dir = join(b.home, "state", "channels", "outbox");
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json") && !n.startsWith("."))
    .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")));
}

test("the owner's direct chat gets tools; another sender gets a tool-free session", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("hello owner"), text("hello stranger"));
  await startDaemon(b);
  const ownerMsg = sendMessage(b, { text: "hi" });
  const [reply] = await waitForOut(b, 1);
  expect(reply).toMatchObject({ to: "owner-1", text: "hello owner", in_reply_to: ownerMsg, files: [] });
  sendMessage(b, { from: "stranger", text: "hi" });
  const all = await waitForOut(b, 2);
  expect(all.find((m) => m.to === "stranger")?.text).toBe("hello stranger");
  const [ownerReq, otherReq] = fake.requests.map((r) => r.body);
  expect(toolNames(ownerReq)).toEqual(expect.arrayContaining(["read", "bash", "chat_attach", "chat_history", "chat_keep"]));
  expect(toolNames(otherReq)).toEqual([]);
  expect(JSON.stringify(otherReq)).not.toContain("web_search");
  expect(JSON.stringify(ownerReq)).toContain("Chat channel");
  expect(inboxEmpty(b)).toBe(true); // taken and removed once queued
}, 30_000);

test("messages that arrive during a turn queue and run one at a time, in order", async () => {
  const slow = await startFakeModel({ frameDelayMs: 40 });
  try {
    const b2 = makeBridge(slow.url);
    slow.queue(text("answer one"), text("answer two"), text("answer three"));
    await startDaemon(b2);
    const ids = [sendMessage(b2, { text: "first" }), sendMessage(b2, { text: "second" }), sendMessage(b2, { text: "third" })];
    const out = await waitForOut(b2, 3, 20_000);
    const byReply = new Map(out.map((m) => [m.in_reply_to, m.text]));
    expect(ids.map((id) => byReply.get(id))).toEqual(["answer one", "answer two", "answer three"]);
    // Each request carries the previous answer: the second turn started only after the first ended.
    expect(inputText(slow.requests[1]!.body)).toContain("answer one");
    expect(inputText(slow.requests[2]!.body)).toContain("answer two");
  } finally {
    await slow.close();
  }
}, 30_000);

test("/stop cancels the running turn; /new starts a fresh session and episode", async () => {
  const b = makeBridge(fake.url);
  fake.queue(hang("working on it "), text("after stop"), text("fresh answer"));
  await startDaemon(b);
  const long = sendMessage(b, { text: "a long task" });
  await waitFor(() => fake.requests.length === 1, 10_000, "the first model request");
  expect(readdirSync(join(b.chat, "typing"))).toEqual(["owner-1"]); // typing… while the turn runs
  await Bun.sleep(100);
  sendMessage(b, { text: "/stop" });
  const [stopped] = await waitForOut(b, 1);
  expect(stopped!.in_reply_to).toBe(long);
  expect(stopped!.text).toContain("[stopped]");
  await waitFor(() => readdirSync(join(b.chat, "typing")).length === 0, 25_000, "typing to be cleared");
  sendMessage(b, { text: "remember the blue door" });
  await waitForOut(b, 2);
  sendMessage(b, { text: "/new" });
  await waitFor(() => outMessages(b).some((m) => m.text.startsWith("Started a new conversation")), 10_000, "the /new answer");
  sendMessage(b, { text: "what did I say?" });
  await waitForOut(b, 4);
  const last = fake.requests.at(-1)!.body;
  expect(inputText(last)).toContain("what did I say?");
  expect(inputText(last)).not.toContain("blue door"); // a new session: the old history is gone
  const convs = readdirSync(join(b.home, "archive", "dir", "default"));
  expect(convs.length).toBe(1);
  const { listEpisodes, readEpisode } = await import("../../src/chatlog/log");
  const logDir = join(b.home, "archive", "dir", "default", convs[0]!);
  const episodes = listEpisodes(logDir);
  expect(episodes.length).toBe(2);
  expect(readEpisode(logDir, episodes[1]!).at(-1)).toMatchObject({ type: "end", reason: "new" });
  expect(readEpisode(logDir, episodes[0]!).map((e: any) => [e.author, e.text])).toEqual([
    ["owner", "what did I say?"],
    ["scv", "fresh answer"],
  ]);
}, 30_000);

test("a redelivered message is answered once, also after a restart", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("only once"), text("second answer"), text("must not be used"));
  await startDaemon(b);
  sendMessage(b, { id: "dup-1", text: "hello" });
  await waitForOut(b, 1);
  sendMessage(b, { id: "dup-1", text: "hello" });
  await waitFor(() => inboxEmpty(b), 25_000, "the duplicate to be taken");
  await killDaemon(b, "SIGKILL");
  sendMessage(b, { id: "dup-1", text: "hello" });
  sendMessage(b, { id: "new-2", text: "another" });
  await startDaemon(b);
  await waitForOut(b, 2);
  await Bun.sleep(500);
  const out = outMessages(b);
  expect(out.map((m) => m.in_reply_to).sort()).toEqual(["dup-1", "new-2"]);
  expect(fake.requests.length).toBe(2);
}, 30_000);

test("SIGKILL mid-turn: queued inbound runs, pending outbound goes once, the interrupted turn is reported", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("reply one"), hang("thinking "));
  await startDaemon(b);
  breakOut(b, true); // reply one stays in the outbox
  const m1 = sendMessage(b, { text: "one" });
  const m2 = sendMessage(b, { text: "two" });
  await waitFor(() => fake.requests.length === 2, 10_000, "the second turn to start");
  const m3 = sendMessage(b, { text: "three" });
  await waitFor(() => inboxEmpty(b), 25_000, "message three to be queued");
  expect(outMessages(b)).toEqual([]);
  await killDaemon(b, "SIGKILL");
  breakOut(b, false);
  fake.clear();
  fake.queue(text("reply three"));
  await startDaemon(b);
  await waitForOut(b, 3);
  await Bun.sleep(800);
  const final = outMessages(b);
  expect(final.length).toBe(3);
  const of = (id: string) => final.filter((m) => m.in_reply_to === id);
  expect(of(m1).map((m) => m.text)).toEqual(["reply one"]);
  expect(of(m2).length).toBe(1);
  expect(of(m2)[0]!.text).toContain("interrupted");
  expect(of(m3).map((m) => m.text)).toEqual(["reply three"]);
  expect(fake.requests.length).toBe(3); // two was not re-run
  // The conversation resumed its stored session: the model still sees the turn before the crash.
  expect(inputText(fake.requests[2]!.body)).toContain("reply one");
}, 30_000);

test("a send that fails twice is retried with backoff and delivered once", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("eventually"));
  await startDaemon(b);
  breakOut(b, true);
  const id = sendMessage(b, { text: "hi" });
  await waitFor(() => deliveryRecords(b).some((r) => r.attempts >= 2), 10_000, "two failed attempts");
  const failing = deliveryRecords(b)[0];
  expect(failing.state).toBe("pending");
  expect(failing.lastError).toContain("cannot write");
  breakOut(b, false);
  const [m] = await waitForOut(b, 1);
  expect(m).toMatchObject({ in_reply_to: id, text: "eventually" });
  await waitFor(() => deliveryRecords(b)[0]?.state === "sent", 25_000, "the record to be marked sent");
  // An attempt is counted (and saved) when it starts, so the second one may still have been in flight when out/
  // was mended: it then succeeded as attempt 2, else attempt 3 did. Either way: retried, delivered once.
  expect([2, 3]).toContain(deliveryRecords(b)[0].attempts);
  expect(outMessages(b).length).toBe(1);
}, 30_000);

test("a send that finally fails is told to the owner in the next message that gets through", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("for the stranger"), text("owner answer"));
  await startDaemon(b);
  breakOut(b, true);
  sendMessage(b, { from: "stranger", text: "hello" });
  await waitFor(() => deliveryRecords(b).some((r) => r.state === "failed"), 15_000, "the send to fail for good");
  breakOut(b, false);
  sendMessage(b, { text: "status?" });
  const [m] = await waitForOut(b, 1);
  expect(m!.to).toBe("owner-1");
  expect(m!.text).toContain("could not deliver an earlier message");
  expect(m!.text).toContain("for the stranger");
  expect(m!.text).toContain("owner answer");
}, 30_000);

async function backgroundBridge(sleepSeconds: number) {
  const { BASH, FAKE_AGENT, signIn } = await import("../fake/agent-harness");
  const b = makeBridge(fake.url, `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`);
  signIn(b.home, "dsh");
  const agentOut = join(b.root, "agent-out.txt");
  writeFileSync(agentOut, "the migration is done");
  b.env.FAKE_AGENT_STDOUT = agentOut;
  b.env.FAKE_AGENT_SLEEP = String(sleepSeconds);
  fake.queue(
    toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "run the migration", background: true } }]),
    text("Started job-1."),
    text("Report: the migration is done."),
  );
  return b;
}

test("a background report reaches the owner as an unprompted message", async () => {
  const b = await backgroundBridge(1);
  await startDaemon(b);
  const id = sendMessage(b, { text: "migrate in the background" });
  const out = await waitForOut(b, 2, 20_000);
  expect(out.find((m) => m.in_reply_to === id)?.text).toBe("Started job-1.");
  const report = out.find((m) => m.in_reply_to === undefined)!;
  expect(report.text).toBe("Report: the migration is done.");
  expect(report).not.toHaveProperty("in_reply_to");
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("[SCV background report]");
}, 30_000);

test("scv daemon restart waits for a running background job, then picks everything up", async () => {
  const b = await backgroundBridge(2);
  await startDaemon(b);
  sendMessage(b, { text: "migrate in the background" });
  await waitForOut(b, 1, 20_000);
  const first = b.daemon!.pid;
  const began = Date.now();
  const restart = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "daemon", "restart"], { env: b.env, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([restart.exited, new Response(restart.stdout).text(), new Response(restart.stderr).text()]);
  expect(code).toBe(0);
  expect(stderr).toContain("waiting for");
  expect(stdout).toContain("scv daemon started");
  expect(Date.now() - began).toBeGreaterThanOrEqual(900); // it waited for the job instead of killing it
  await b.daemon!.exited;
  b.daemon = undefined;
  const out = await waitForOut(b, 2, 20_000);
  expect(out.find((m) => m.in_reply_to === undefined)?.text).toBe("Report: the migration is done.");
  const { probeDaemon } = await import("../../src/daemon/client");
  const probe = await probeDaemon(b.home);
  expect(probe.state === "running" && probe.health.pid !== first).toBe(true);
}, 40_000);

test("scv daemon restart waits for a nested SCV's own background jobs", async () => {
  const { BASH, FAKE_SCV_SERVER, signIn } = await import("../fake/agent-harness");
  const b = makeBridge(fake.url, `[agents.scv]\ncommand = "${BASH}"\nargs = ["${FAKE_SCV_SERVER}"]\n`);
  signIn(b.home, "scv");
  const log = join(b.root, "scv-log");
  b.env.FAKE_SCV_LOG = log;
  // The nested SCV's "jobs" turn starts job-1 and reports it in a turn of its own once the file below exists: the
  // test makes it once the restart says it waits (a fixed 3 s could pass before the restart began, under load).
  const reportNow = join(b.root, "report-now");
  b.env.FAKE_SCV_REPORT_FILE = reportNow;
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "scv", prompt: "jobs please" } }]), text("The nested SCV started job-1."));
  await startDaemon(b);
  sendMessage(b, { text: "start jobs in a nested scv" });
  await waitForOut(b, 1, 20_000);
  const reportSeen = () => existsSync(join(log, "requests")) && readFileSync(join(log, "requests"), "utf8").includes('"approval.resolve"');
  expect(reportSeen()).toBe(false); // job-1 still runs in the nested SCV
  const restart = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "daemon", "restart"], { env: b.env, stdout: "pipe", stderr: "pipe" });
  const stderrText = (async () => {
    let text = "";
    for await (const chunk of restart.stderr) {
      text += new TextDecoder().decode(chunk);
      if (text.includes("waiting for") && !existsSync(reportNow)) writeFileSync(reportNow, "");
    }
    return text;
  })();
  const [code, stdout, stderr] = await Promise.all([restart.exited, new Response(restart.stdout).text(), stderrText]);
  expect(code).toBe(0);
  expect(stderr).toContain("waiting for");
  expect(stdout).toContain("scv daemon started");
  expect(reportSeen()).toBe(true); // the nested job's report turn came before the old daemon went
  await b.daemon!.exited;
  b.daemon = undefined;
}, 40_000);

test("a file the owner sends is saved in the chat media, and chat_attach sends one back beside the reply", async () => {
  const b = makeBridge(fake.url);
  writeFileSync(join(b.chat, "photo.jpg"), "JPEGDATA");
  const photo = "photo.jpg"; // relative to the channel folder: the only place a dir message takes files from
  writeFileSync(join(b.workspace, "chart.png"), "PNGDATA");
  fake.queue(toolCalls([{ name: "chat_attach", arguments: { path: "chart.png", caption: "the chart" } }]), text("Here it is."));
  await startDaemon(b);
  const id = sendMessage(b, { text: "look at this and send the chart", files: [photo] });
  const [m] = await waitForOut(b, 1);
  expect(m).toMatchObject({ in_reply_to: id, text: "Here it is.\n\nchart.png: the chart" });
  expect(m!.files.length).toBe(1);
  expect(readFileSync(m!.files[0]!, "utf8")).toBe("PNGDATA");
  expect(m!.files[0]!.startsWith(join(b.chat, "out"))).toBe(true);
  // The prompt showed where the owner's file was saved; the saved copy is private.
  const prompt = inputText(fake.requests[0]!.body);
  const saved = /\[file from the user: ([^\]]+)\]/.exec(prompt)![1]!;
  expect(saved.startsWith(join(b.home, "state", "media", "dir", "default"))).toBe(true);
  expect(readFileSync(saved, "utf8")).toBe("JPEGDATA");
  // The outbox copy is deleted once sent.
  await waitFor(() => readdirSync(join(b.home, "state", "media", "outbox")).length === 0, 25_000, "the outbox copy to go");
}, 30_000);

test("media older than keep_days is removed at start and the log shows the file as gone", async () => {
  const b = makeBridge(fake.url, "keep_days = 3");
  writeFileSync(join(b.chat, "cat.jpg"), "CAT");
  const photo = "cat.jpg";
  fake.queue(text("nice cat"), text("it has expired"));
  await startDaemon(b);
  sendMessage(b, { text: "my cat", files: [photo] });
  await waitForOut(b, 1);
  await killDaemon(b, "SIGTERM");
  const saved = /\[file from the user: ([^\]]+)\]/.exec(inputText(fake.requests[0]!.body))![1]!;
  const old = (Date.now() - 4 * 86_400_000) / 1000;
  const { utimesSync } = await import("node:fs");
  utimesSync(saved, old, old);
  await startDaemon(b);
  await waitFor(() => !require("node:fs").existsSync(saved), 25_000, "the expired file to be removed");
  const { listEpisodes } = await import("../../src/chatlog/log");
  const { readLogEpisode } = await import("../../src/chatlog/history");
  const convDir = join(b.home, "archive", "dir", "default");
  const logDir = join(convDir, readdirSync(convDir)[0]!);
  const episode = readLogEpisode(logDir, listEpisodes(logDir)[0]!, 0, 30);
  expect(episode.messages[0]).toMatchObject({ author: "owner", text: "my cat", files: [{ name: "cat.jpg", state: "gone" }] });
  expect(episode.messages[1]).toMatchObject({ author: "scv", text: "nice cat" });
}, 30_000);

test("/jobs lists the conversation's background jobs", async () => {
  const b = await backgroundBridge(3);
  await startDaemon(b);
  sendMessage(b, { text: "migrate in the background" });
  await waitForOut(b, 1, 20_000);
  const jobs = sendMessage(b, { text: "/jobs" });
  await waitFor(() => outMessages(b).some((m) => m.in_reply_to === jobs), 10_000, "the /jobs answer");
  expect(outMessages(b).find((m) => m.in_reply_to === jobs)!.text).toMatch(/job-1: dsh, running/);
}, 30_000);

test("/plan shows the owner the model's task list; nothing is sent about it unasked", async () => {
  const b = makeBridge(fake.url);
  const items = [
    { text: "collect the invoices", status: "done" },
    { text: "total them", status: "in_progress" },
  ];
  fake.queue(toolCalls([{ name: "plan", arguments: { items } }]), text("Working on it."));
  await startDaemon(b);
  const before = sendMessage(b, { text: "/plan" });
  await waitFor(() => outMessages(b).some((m) => m.in_reply_to === before), 10_000, "the first /plan answer");
  expect(outMessages(b).find((m) => m.in_reply_to === before)!.text).toBe("No plan: the model has not made one in this conversation.");
  sendMessage(b, { text: "do my accounts" });
  await waitFor(() => outMessages(b).some((m) => m.text === "Working on it."), 15_000, "the turn's reply");
  expect(outMessages(b).length).toBe(2); // the plan itself went nowhere
  const asked = sendMessage(b, { text: "/plan" });
  await waitFor(() => outMessages(b).some((m) => m.in_reply_to === asked), 10_000, "the /plan answer");
  expect(outMessages(b).find((m) => m.in_reply_to === asked)!.text).toBe("Plan (1/2 done):\n[x] collect the invoices\n[>] total them");
}, 30_000);

test("scv channels list and status show each channel, its state, queue depths and last error", async () => {
  const b = makeBridge(fake.url);
  const scv = async (...args: string[]) => {
    const p = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "channels", ...args], { env: b.env, stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
    return { code, stdout, stderr };
  };
  const listed = await scv("list");
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain(`dir/default  owner owner-1  path ${b.chat}`);
  expect((await scv("status")).stdout).toContain("the daemon is not running");
  fake.queue(text("stuck for now"));
  await startDaemon(b);
  breakOut(b, true);
  sendMessage(b, { text: "hi" });
  await waitFor(() => deliveryRecords(b).some((r) => r.attempts >= 1), 10_000, "a failed attempt");
  const status = await scv("status");
  expect(status.stdout).toContain("dir/default  connected  inbound queued 0, outbound pending 1, held 0, failed 0");
  expect(status.stdout).toMatch(/last error: cannot write to .*out/);
  const json = JSON.parse((await scv("status", "--json")).stdout);
  expect(json.channels[0]).toMatchObject({ kind: "dir", account: "default", state: "connected", outbound_pending: 1 });
  expect((await scv("bogus")).code).not.toBe(0);
}, 30_000);

test("a reply carries at most 8 files; the rest are reported as not sent and their copies removed", async () => {
  const b = makeBridge(fake.url);
  const calls = [];
  for (let i = 1; i <= 9; i++) {
    writeFileSync(join(b.workspace, `f${i}.txt`), `file ${i}`);
    calls.push({ name: "chat_attach", arguments: { path: `f${i}.txt` }, id: `call_${i}` });
  }
  fake.queue(toolCalls(calls), text("nine files"));
  await startDaemon(b);
  sendMessage(b, { text: "send them all" });
  const [m] = await waitForOut(b, 1);
  expect(m!.files.length).toBe(8);
  expect(m!.text).toContain("nine files");
  expect(m!.text).toContain("not sent, a reply carries at most 8 files: f9.txt");
  await waitFor(() => readdirSync(join(b.home, "state", "media", "outbox")).length === 0, 25_000, "every outbox copy to go");
}, 30_000);

test("scv daemon restart --force does not wait: the stopped job is reported after the restart", async () => {
  const b = await backgroundBridge(30);
  await startDaemon(b);
  sendMessage(b, { text: "migrate in the background" });
  await waitForOut(b, 1, 20_000);
  const began = Date.now();
  const restart = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "daemon", "restart", "--force"], { env: b.env, stdout: "pipe", stderr: "pipe" });
  expect(await restart.exited).toBe(0);
  expect(Date.now() - began).toBeLessThan(10_000);
  await b.daemon!.exited;
  b.daemon = undefined;
  const out = await waitForOut(b, 2, 20_000);
  const notice = out.find((m) => m.in_reply_to === undefined)!;
  expect(notice.text).toContain("job-1 (dsh)");
  expect(notice.text).toContain("not completed");
}, 40_000);

test("a planned restart past its bound cuts the running turn, which is reported as interrupted, not answered", async () => {
  const b = makeBridge(fake.url);
  fake.queue(hang("half an answer "));
  await startDaemon(b);
  const id = sendMessage(b, { text: "think hard" });
  await waitFor(() => fake.requests.length === 1, 10_000, "the turn to start");
  const restart = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "daemon", "restart", "--timeout", "1"], { env: b.env, stdout: "pipe", stderr: "pipe" });
  expect(await restart.exited).toBe(0);
  await b.daemon!.exited;
  b.daemon = undefined;
  const [m] = await waitForOut(b, 1, 20_000);
  expect(m!.in_reply_to).toBe(id);
  expect(m!.text).toContain("interrupted");
  await Bun.sleep(500);
  expect(outMessages(b).length).toBe(1);
}, 40_000);

test("a file in in/ that is not a message is moved to rejected/ with the reason, and the rest go on", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("fine"));
  await startDaemon(b);
  mkdirSync(join(b.chat, "in"), { recursive: true });
  writeFileSync(join(b.chat, "in", "000-bad.json"), "{not json");
  writeFileSync(join(b.chat, "in", "001-noid.json"), JSON.stringify({ from: "owner-1", text: "x" }));
  sendMessage(b, { text: "good" });
  await waitForOut(b, 1);
  await waitFor(() => inboxEmpty(b), 25_000, "the inbox to be emptied");
  expect(readFileSync(join(b.chat, "rejected", "000-bad.json.error.txt"), "utf8")).toContain("not valid JSON");
  expect(readFileSync(join(b.chat, "rejected", "001-noid.json.error.txt"), "utf8")).toContain("id:");
  expect(readFileSync(join(b.chat, "rejected", "000-bad.json"), "utf8")).toBe("{not json"); // nothing lost
}, 30_000);

test("a bad [channels] table stops `scv daemon run` with the file, key and fix", async () => {
  const b = makeBridge(fake.url, "keep_days = 0");
  const p = Bun.spawn([join(import.meta.dir, "../../dist/scv"), "daemon", "run"], { env: b.env, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  expect(code).toBe(78);
  expect(stderr).toContain("config.toml: channels.keep_days: must be greater than 0");
}, 20_000);

test("a session idle past session_idle_seconds is closed, and the next message resumes it with its history", async () => {
  const b = makeBridge(fake.url, "session_idle_seconds = 1");
  fake.queue(text("The deploy target is berlin-3, noted."), text("It is berlin-3."));
  await startDaemon(b);
  sendMessage(b, { text: "Remember: the deploy target is berlin-3." });
  await waitForOut(b, 1);
  const sessions = join(b.home, "state", "sessions");
  const locks = () => readdirSync(sessions).filter((n) => n.endsWith(".lock"));
  expect(locks().length).toBe(1);
  // Closed within the next sweeps (every 2 s) once a second has passed without a message.
  await waitFor(() => locks().length === 0, 25_000, "the idle session to be closed");
  // The lock goes with the close; the log line is written just after it.
  await waitFor(() => b.logText().includes("closed the idle session"), 25_000, `the log line about the idle session; log:\n${b.logText()}`);
  sendMessage(b, { text: "Where do we deploy?" });
  const out = await waitForOut(b, 2);
  expect(out.at(-1)!.text).toBe("It is berlin-3.");
  // The same stored session, resumed: the second request carries the first exchange.
  expect(readdirSync(sessions).filter((n) => n.endsWith(".jsonl")).length).toBe(1);
  expect(inputText(fake.requests[1]!.body)).toContain("The deploy target is berlin-3, noted.");
}, 30_000);

test("an owner changed in config: after the restart the former owner's session is not resumed with its tools; a new one starts and says so (red team finding 2)", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("owner reply"), text("after the change"));
  await startDaemon(b);
  sendMessage(b, { text: "secret plans" });
  await waitForOut(b, 1);
  expect(toolNames(fake.requests[0]!.body)).toContain("read");
  await killDaemon(b, "SIGTERM");
  const file = join(b.home, "config.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace('owner = "owner-1"', 'owner = "owner-2"'));
  await startDaemon(b);
  sendMessage(b, { from: "owner-1", text: "what were my plans?" });
  const out = await waitForOut(b, 3);
  const second = fake.requests[1]!.body;
  expect(toolNames(second)).toEqual([]);
  expect(inputText(second)).not.toContain("secret plans");
  expect(out.some((m) => m.text.includes("access changed"))).toBe(true);
  expect(out.some((m) => m.text === "after the change")).toBe(true);
}, 40_000);

test("a conversation over its own limit is refused and the owner told once; the owner's /usage shows today and this month", async () => {
  const b = makeBridge(fake.url, "\n[limits]\nconversation_daily_tokens = 100\n");
  fake.queue(text("hello stranger", { usage: { input_tokens: 80, output_tokens: 30 } }), text("hello owner", { usage: { input_tokens: 5, output_tokens: 5 } }));
  await startDaemon(b);
  sendMessage(b, { from: "stranger", text: "hi" });
  await waitForOut(b, 1);
  sendMessage(b, { from: "stranger", text: "more please" });
  const three = await waitForOut(b, 3);
  const refused = three.find((m) => m.to === "stranger" && m.text !== "hello stranger");
  const told = three.find((m) => m.to === "owner-1");
  // The stranger is told no figures and no config keys; the owner gets both.
  expect(refused!.text).toBe("The assistant cannot answer right now. Please try again later.");
  expect(told!.text).toContain("reached its limit");
  expect(told!.text).toMatch(/the spending limit limits\.conversation_daily_tokens is reached \(110 of 100 tokens used today in this conversation\); it resets at /);
  sendMessage(b, { from: "stranger", text: "and again" });
  sendMessage(b, { text: "/usage" });
  const all = await waitForOut(b, 5);
  expect(all.filter((m) => m.to === "owner-1")).toHaveLength(2); // told once, then the /usage answer
  const usage = all.find((m) => m.to === "owner-1" && m.text.startsWith("Today"))!;
  expect(usage.text).toBe("Today: 110 tokens in 1 call (scv (own model) 110)\nThis month: 110 tokens in 1 call (scv (own model) 110)");
  // The owner is not held to a conversation limit.
  sendMessage(b, { text: "hi" });
  const last = await waitForOut(b, 6);
  expect(last.filter((m) => m.to === "owner-1").map((m) => m.text)).toContain("hello owner");
  expect(last.filter((m) => m.to === "stranger")).toHaveLength(3);
  expect(fake.requests).toHaveLength(2);
}, 30_000);
