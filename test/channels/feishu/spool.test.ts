// The Feishu event spool: durable, in order, retried in place, and its dedupe log survives a restart and
// stays bounded.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSpool, type SpooledEvent } from "../../../src/channels/feishu/spool";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "scv-spool-"));
  dirs.push(d);
  return d;
};
let n = 0;
const event = (id: string, messageId = `om_${id}`): SpooledEvent => ({
  event_id: id,
  received: Date.now() + n++,
  sender: { sender_id: { open_id: "ou_x" } },
  message: { message_id: messageId, chat_id: "oc", chat_type: "p2p", message_type: "text", content: "{}" },
});

test("events are handed on in arrival order; one that fails waits in place with those after it", async () => {
  const dir = tmp();
  const spool = new EventSpool(dir);
  for (const id of ["a", "b", "c"]) spool.add(event(id));
  expect(statSync(join(dir, "events", readdirSync(join(dir, "events"))[0]!)).mode & 0o777).toBe(0o600);
  const seen: string[] = [];
  let failB = true;
  const stop = new AbortController();
  const run = spool.run(
    stop.signal,
    async (e) => {
      seen.push(e.event_id);
      if (e.event_id === "b" && failB) {
        failB = false;
        throw new Error("download failed");
      }
    },
    () => {},
  );
  const deadline = Date.now() + 5000;
  while (seen.length < 4 && Date.now() < deadline) await Bun.sleep(20);
  stop.abort();
  await run;
  expect(seen).toEqual(["a", "b", "b", "c"]);
  expect(readdirSync(join(dir, "events"))).toEqual([]);
});

test("a repeated event or message is known across a restart; the dedupe log is compacted to the newest", () => {
  const dir = tmp();
  const spool = new EventSpool(dir, 3);
  for (let i = 0; i < 8; i++) spool.add(event(`e${i}`));
  const again = new EventSpool(dir, 3);
  expect(again.seenBefore(event("e7"))).toBe(true);
  expect(again.seenBefore(event("other", "om_e6"))).toBe(true); // the same message under a new event ID
  expect(again.seenBefore(event("e0"))).toBe(false); // compacted away (the core still knows the message)
  expect(readFileSync(join(dir, "events-seen.jsonl"), "utf8").trim().split("\n").length).toBeLessThanOrEqual(6);
});
