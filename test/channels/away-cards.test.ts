// The daemon's away cards (issue 54) without a daemon: short replies and buttons, the first answer wins, strangers
// and stale IDs get a clear answer and change nothing, a person-only card says so, secrets are masked.
import { expect, test } from "bun:test";
import { AwayCards, cardText } from "../../src/channels/away-cards";
import type { ChannelHost } from "../../src/channels/core/host";
import { LiveHub } from "../../src/channels/core/live";
import { ChannelsConfig, type Config, NotifyConfig, SchedulesConfig } from "../../src/config/schema";

const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({}), notify: NotifyConfig.parse({}) } as Config;

function setup() {
  const sent: { channel: string; conversation: string; text: string; id: string; buttons?: unknown }[] = [];
  const host = {
    ownerChannels: () => [{ key: "telegram/default", ownerConversation: "42", state: { state: "connected" } }],
    send: (channel: string, conversation: string, text: string, id: string, _nb?: number, buttons?: unknown) => sent.push({ channel, conversation, text, id, buttons }),
  } as unknown as ChannelHost;
  const live = new LiveHub();
  const cards = new AwayCards({ config, env: {}, log: () => {}, channels: () => host, live });
  return { cards, sent, live };
}

const request = (over: Record<string, unknown> = {}) =>
  ({ session_id: "s-1234abcd", turn_id: "t1", approval_id: "ap-1", call_id: "c1", tool: "bash", risk: "process", summary: "$ curl -H 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz123456' example.org", workspace: "/w", ...over }) as never;

const owner = { channel: "telegram/default", from: "42", owner: true };
const stranger = { channel: "telegram/default", from: "7", owner: false };

test("a card is offered with its ID, masked summary and buttons; the owner's y answers it once; others are told", () => {
  const { cards, sent, live } = setup();
  const { id, token } = cards.register("the terminal", request());
  expect(sent).toHaveLength(1);
  expect(sent[0]!.text).toStartWith("[SCV needs you: bash (process) in the terminal session s-1234abcd, /w]");
  expect(sent[0]!.text).not.toContain("sk-abcdefghijklmnopqrstuvwxyz123456");
  expect(sent[0]!.text).toContain(`Reply y ${id} to allow once`);
  expect(sent[0]!.buttons).toEqual([[{ label: "Allow once", data: `w:${id}:y` }, { label: "For the session", data: `w:${id}:a` }, { label: "Deny", data: `w:${id}:n` }]]);
  expect(live.snapshot().approvals.map((a) => a.id)).toEqual([`away-${id}`]);
  expect(cards.reply(stranger, `y ${id}`)).toBe(`Only the owner of this SCV answers its approval cards; card ${id} was not answered.`);
  expect(cards.press(stranger, `w:${id}:y`)).toEqual({ refused: `Only the owner of this SCV answers its approval cards; card ${id} was not answered.` });
  expect(cards.poll(id, token)).toEqual({ known: true });
  expect(cards.reply(stranger, "hello there")).toBeUndefined(); // an ordinary message goes on
  expect(cards.reply(owner, "y fff")).toBe("No card fff is waiting (the IDs are in the card messages); nothing was approved.");
  expect(cards.press(owner, `w:${id}:y`)).toEqual({ chosen: `Approved card ${id} once.` });
  expect(cards.poll(id, token)).toEqual({ known: true, answer: { approved: true, by: "telegram/default (42)" } });
  expect(live.snapshot().approvals).toEqual([]);
  expect(cards.reply(owner, `n ${id} no`)).toBe(`Card ${id} no longer waits: it was answered in telegram/default (42). Nothing changed.`);
  expect(cards.poll(id, "wrong")).toEqual({ known: false });
});

test("n with a reason denies and passes the reason; a answers for the session; settled on its screen first tells the chat", () => {
  const { cards, sent } = setup();
  const one = cards.register("scv exec", request());
  expect(cards.reply(owner, `N ${one.id} use the staging host`)).toBe(`Denied card ${one.id} (use the staging host).`);
  expect(cards.poll(one.id, one.token).answer).toEqual({ approved: false, reason: "use the staging host", by: "telegram/default (42)" });
  const two = cards.register("scv exec", request({ approval_id: "ap-2" }));
  expect(cards.reply(owner, `a ${two.id}`)).toBe(`Approved card ${two.id} and the same calls for the rest of that session.`);
  expect(cards.poll(two.id, two.token).answer).toMatchObject({ approved: true, session: true });
  const three = cards.register("the terminal", request({ approval_id: "ap-3" }));
  expect(cards.settle(three.id, three.token, "the terminal")).toBe(true);
  expect(sent.at(-1)!.text).toBe(`[SCV card ${three.id} was answered in the terminal; nothing more to do here.]`);
  expect(cards.reply(owner, `y ${three.id}`)).toContain("no longer waits");
});

test("a person-only card says no rule or auto-approval answers it", () => {
  expect(cardText({ id: "abc", source: "the terminal", request: request({ guard: { reason: "it asks to run outside the sandbox", person_only: true } }) })).toContain("(this one needs a person: no rule or auto-approval answers it)");
});

test("a question card: `<id> <answer>` or a choice's number answers it; y is told to answer in words; others refused", () => {
  const { cards, sent, live } = setup();
  const { id, token } = cards.register("the terminal", request({ tool: "clarify", summary: "Which host?" }), 0, { text: "Which host?", choices: ["staging", "prod"] });
  expect(sent[0]!.text).toBe(`[SCV asks you, in the terminal session s-1234abcd, /w]\nWhich host?\n1. staging\n2. prod\nReply ${id} followed by your answer (or a choice's number).`);
  expect(sent[0]!.buttons).toBeUndefined();
  expect(live.snapshot().approvals).toEqual([]);
  expect(cards.reply(owner, `y ${id}`)).toBe(`Card ${id} is a question: reply ${id} followed by your answer.`);
  expect(cards.reply(stranger, `${id} 2`)).toBe(`Only the owner of this SCV answers its questions; card ${id} was not answered.`);
  expect(cards.reply(owner, `${id} 1`)).toBe(`Answered card ${id}: “staging”.`);
  expect(cards.poll(id, token).answer).toEqual({ approved: true, text: "staging", by: "telegram/default (42)" });
  expect(cards.reply(owner, "abc is an ordinary message")).toBeUndefined(); // no such card: it goes on as a message
});
