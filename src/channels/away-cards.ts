// Approval cards from sessions the daemon does not host (a TUI, `scv exec` on a terminal), offered to the owner
// where [notify] reaches them when nobody answered on the session's own screen within `after_seconds`. The
// session registers its waiting card over the control socket (POST /cards) and asks for the answer (GET
// /cards/:id); the owner answers with a short reply in their chat (`y 3f2`, `a 3f2`, `n 3f2 reason`) or on the
// web page's Live view. The first answer wins; the places that did not answer are told where it was answered.
// Person-only requests (`unsandboxed`) may be answered here (the owner is a person), never by any auto-approval.
import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import type { Config } from "../config/schema";
import { lazySchema } from "../lazy-schema";
import { redactSecrets } from "../text/redact";
import { ellipsize } from "../text/cut";
import type { Button, ButtonOutcome } from "./core/adapter";
import type { ChannelHost } from "./core/host";
import type { ApprovalRequested, LiveHub } from "./core/live";
import { notifySettings, tellOwner } from "./notify";

/** What a session sends with POST /cards: the approval.requested it shows, and where it runs. */
export const AwayCardRequest = lazySchema((z) =>
  z.object({
    source: z.string().min(1).max(100),
    /** Offered to the owner's chat this long after it was registered, unless answered meanwhile; 0: at once. */
    after_seconds: z.number().int().min(0).max(86400).default(0),
    /** A question the model asks (clarify) instead of an approval: answered with text. */
    question: z.object({ text: z.string().min(1).max(4000), choices: z.array(z.string().max(500)).max(20).optional() }).optional(),
    request: z.looseObject({
      session_id: z.string().min(1).max(200),
      approval_id: z.string().min(1).max(200),
      tool: z.string().min(1).max(200),
      risk: z.string().max(50),
      summary: z.string().max(200_000),
      workspace: z.string().max(4096),
      guard: z.looseObject({ reason: z.string().optional(), person_only: z.boolean().optional() }).optional(),
    }),
  }),
);

/** What a session sends with POST /notices: something for the owner, said once per ID (a long turn's end). */
export const AwayNotice = lazySchema((z) => z.object({ id: z.string().regex(/^[\w.-]{1,200}$/), text: z.string().min(1).max(4000) }));

export interface AwayAnswer {
  approved: boolean;
  /** A question's answer. */
  text?: string;
  /** `a 3f2`: approved for the rest of the session. */
  session?: boolean;
  reason?: string;
  /** Where it was answered, in words: "dir/default (owner-1)", "the web page". */
  by: string;
}

interface Card {
  id: string;
  token: string;
  /** A daemon-hosted session's approval (the web chat's, a scheduled run's): its ID on the live hub. */
  hosted?: string;
  source: string;
  request: ApprovalRequested;
  answer?: AwayAnswer;
  question?: { text: string; choices?: string[] };
  /** Where the owner was offered it (to tell them when it was answered elsewhere). */
  offeredOn?: string;
  settled: boolean;
  at: number;
}

const MAX_CARDS = 200;
const KEEP_SETTLED_MS = 10 * 60_000;
const SHORT_REPLY = /^\s*([yna])\s+([0-9a-f]{3})\b\s*([\s\S]*)$/i;
/** `3f2 the answer`: answers a question card. */
const QUESTION_REPLY = /^\s*([0-9a-f]{3})\s+([\s\S]+)$/i;

export interface AwayCardsOptions {
  config: Config;
  env: NodeJS.ProcessEnv;
  log(line: string): void;
  channels(): ChannelHost | undefined;
  live?: LiveHub;
}

export class AwayCards {
  private readonly cards = new Map<string, Card>();

  constructor(private readonly opts: AwayCardsOptions) {
    // Approvals of sessions the daemon hosts wait on the web page; nobody answering there within after_seconds,
    // they are offered to the owner's chat too (a chat's own cards are already in that chat).
    opts.live?.subscribe((e) => {
      if (e.type === "approval" && !e.approval.id.startsWith("away-") && (e.approval.channel === undefined || e.approval.channel === "web")) {
        const timer = setTimeout(() => this.offerHosted(e.approval.id, e.approval.source, e.approval.request), notifySettings(opts.config).after_seconds * 1000);
        timer.unref?.();
      } else if (e.type === "approval.settled") this.hostedSettled(e.id);
    });
  }

  private offerHosted(liveId: string, source: string, request: ApprovalRequested): void {
    if (!this.opts.live?.snapshot().approvals.some((a) => a.id === liveId)) return; // answered meanwhile
    this.sweep();
    const id = this.newId();
    const card: Card = { id, token: randomBytes(16).toString("hex"), hosted: liveId, source, request, settled: false, at: Date.now() };
    this.cards.set(id, card);
    const where = tellOwner(this.deps(), { id: `card-${id}-${card.token.slice(0, 8)}`, text: cardText(card), buttons: cardButtons(id) });
    if (where) card.offeredOn = where;
  }

  /** A hosted approval answered on the web page (or ended with its turn): the chat that was offered it is told. */
  private hostedSettled(liveId: string): void {
    const card = [...this.cards.values()].find((c) => c.hosted === liveId);
    if (!card || card.answer || card.settled) return;
    card.settled = true;
    card.answer = { approved: false, by: "the web page" };
    if (card.offeredOn) this.tell(card, `[SCV card ${card.id} was answered on the web page.]`, "web");
  }

  private newId(): string {
    let id: string;
    do id = randomBytes(2).toString("hex").slice(0, 3);
    while (this.cards.has(id));
    return id;
  }

  /** Registers a waiting card: on the web page's Live view now, offered to the owner's chat after `afterSeconds` unless answered. */
  register(source: string, request: ApprovalRequested, afterSeconds = 0, question?: { text: string; choices?: string[] }): { id: string; token: string } {
    this.sweep();
    const id = this.newId();
    const card: Card = { id, token: randomBytes(16).toString("hex"), source, request, ...(question ? { question } : {}), settled: false, at: Date.now() };
    this.cards.set(id, card);
    const offer = () => {
      if (card.answer || card.settled) return;
      const where = tellOwner(this.deps(), { id: `card-${id}-${card.token.slice(0, 8)}`, text: cardText(card), ...(card.question ? {} : { buttons: cardButtons(id) }) });
      if (where) card.offeredOn = where;
    };
    if (afterSeconds > 0) setTimeout(offer, afterSeconds * 1000).unref?.();
    else offer();
    if (question) return { id, token: card.token };
    this.opts.live?.ask({ ...request, approval_id: `away-${id}` }, async (a) => {
      this.answer(card, { approved: a.approved, ...(a.always ? { session: true } : {}), ...(a.reason ? { reason: a.reason } : {}), by: "the web page" });
    }, source);
    return { id, token: card.token };
  }

  /** The card's answer for the session that registered it (undefined: still waiting). */
  poll(id: string, token: string): { known: boolean; answer?: AwayAnswer } {
    const card = this.cards.get(id);
    if (!card || card.token !== token) return { known: false };
    return { known: true, ...(card.answer ? { answer: card.answer } : {}) };
  }

  /** The session answered it on its own screen (or its turn ended): the owner's chat is told, the web card goes. */
  settle(id: string, token: string, where: string): boolean {
    const card = this.cards.get(id);
    if (!card || card.token !== token) return false;
    card.settled = true;
    this.opts.live?.withdraw(`away-${id}`);
    if (!card.answer && card.offeredOn) this.tell(card, `[SCV card ${id} was answered in ${ellipsize(where, 80)}; nothing more to do here.]`, "settled");
    if (!card.answer) card.answer = { approved: false, by: where };
    return true;
  }

  /**
   * A chat message that answers a card (`y 3f2`, `a 3f2`, `n 3f2 reason`): the reply to send back, or undefined
   * when the message is not such an answer (it then goes on as an ordinary message).
   */
  reply(who: { channel: string; from: string; owner: boolean }, text: string): string | undefined {
    const asked = QUESTION_REPLY.exec(text);
    const q = asked ? this.cards.get(asked[1]!.toLowerCase()) : undefined;
    if (q?.question && asked) return this.answerQuestion(q, who, asked[2]!.trim());
    const m = SHORT_REPLY.exec(text);
    if (!m) return undefined;
    const [, letter, rawId, rest] = m as unknown as [string, string, string, string];
    const id = rawId.toLowerCase();
    const card = this.cards.get(id);
    if (!who.owner) return card ? `Only the owner of this SCV answers its approval cards; card ${id} was not answered.` : undefined;
    if (!card) return `No card ${id} is waiting (the IDs are in the card messages); nothing was approved.`;
    if (card.answer || card.settled) return `Card ${id} no longer waits: it was answered in ${card.answer?.by ?? "its session"}. Nothing changed.`;
    if (card.question) return `Card ${id} is a question: reply ${id} followed by your answer.`;
    const l = letter.toLowerCase();
    const reason = rest.trim().slice(0, 1000);
    this.answer(card, { approved: l !== "n", ...(l === "a" ? { session: true } : {}), ...(l === "n" && reason ? { reason } : {}), by: `${who.channel} (${who.from})` });
    return l === "n" ? `Denied card ${id}${reason ? ` (${ellipsize(reason, 100)})` : ""}.` : `Approved card ${id}${l === "a" ? " and the same calls for the rest of that session" : " once"}.`;
  }

  private answerQuestion(card: Card, who: { channel: string; from: string; owner: boolean }, text: string): string {
    if (!who.owner) return `Only the owner of this SCV answers its questions; card ${card.id} was not answered.`;
    if (card.answer || card.settled) return `Card ${card.id} no longer waits: it was answered in ${card.answer?.by ?? "its session"}. Nothing changed.`;
    const n = /^[1-9]$/.test(text) ? card.question!.choices?.[Number(text) - 1] : undefined;
    const answer = (n ?? text).slice(0, 4000);
    this.answer(card, { approved: true, text: answer, by: `${who.channel} (${who.from})` });
    return `Answered card ${card.id}: “${ellipsize(answer, 100)}”.`;
  }

  /** A button pressed on a card (Telegram, Feishu): the same as the short reply. */
  press(who: { channel: string; from: string; owner: boolean }, data: string): ButtonOutcome | undefined {
    const m = /^w:([0-9a-f]{3}):([yna])$/.exec(data);
    if (!m) return undefined;
    const said = this.reply(who, `${m[2]} ${m[1]}`);
    if (!who.owner || said === undefined) return { refused: said ?? "Only the owner of this SCV answers its approval cards." };
    return said.startsWith("Approved") || said.startsWith("Denied") ? { chosen: said } : { stale: said };
  }

  extend(app: Hono): void {
    app.post("/cards", async (c) => {
      const parsed = AwayCardRequest.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return c.json({ error: `not a card: ${parsed.error.issues[0]?.message ?? "bad body"}` }, 400);
      return c.json(this.register(parsed.data.source, parsed.data.request as unknown as ApprovalRequested, parsed.data.after_seconds, parsed.data.question));
    });
    app.post("/notices", async (c) => {
      const parsed = AwayNotice.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) return c.json({ error: `not a notice: ${parsed.error.issues[0]?.message ?? "bad body"}` }, 400);
      const where = tellOwner(this.deps(), { id: `n-${parsed.data.id}`, text: redactSecrets(parsed.data.text) });
      return c.json({ ok: true, ...(where ? { channel: where } : {}) });
    });
    app.get("/cards/:id", (c) => {
      const r = this.poll(c.req.param("id"), c.req.query("token") ?? "");
      return r.known ? c.json(r) : c.json({ error: "no such card" }, 404);
    });
    app.post("/cards/:id/settled", async (c) => {
      const body = (await c.req.json().catch(() => ({}))) as { token?: unknown; where?: unknown };
      const ok = this.settle(c.req.param("id"), String(body.token ?? ""), typeof body.where === "string" ? body.where : "its session");
      return ok ? c.json({ ok: true }) : c.json({ error: "no such card" }, 404);
    });
  }

  private answer(card: Card, a: AwayAnswer): void {
    if (card.answer || card.settled) return;
    card.answer = a;
    if (card.hosted) return void this.opts.live?.answer(card.hosted, { approved: a.approved, ...(a.session ? { always: true } : {}), ...(a.reason ? { reason: a.reason } : {}) });
    this.opts.live?.withdraw(`away-${card.id}`);
    if (a.by === "the web page" && card.offeredOn) this.tell(card, `[SCV card ${card.id} was answered on the web page (${a.approved ? "approved" : "denied"}).]`, "web");
  }

  private tell(card: Card, text: string, what: string): void {
    const host = this.opts.channels();
    const ch = host?.ownerChannels().find((c) => c.key === card.offeredOn);
    if (host && ch) host.send(ch.key, ch.ownerConversation, text, `card-${card.id}-${card.token.slice(0, 8)}-${what}`);
  }

  private deps() {
    return { config: this.opts.config, host: this.opts.channels(), env: this.opts.env, log: this.opts.log, ...(this.opts.live ? { live: this.opts.live } : {}) };
  }

  /** Settled cards go after a while; a flood of registrations cannot grow the map without bound. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, c] of this.cards) if ((c.answer || c.settled) && now - c.at > KEEP_SETTLED_MS) this.cards.delete(id);
    while (this.cards.size >= MAX_CARDS) this.cards.delete(this.cards.keys().next().value!);
  }
}

/** The card's buttons, where the channel has them. */
export function cardButtons(id: string): Button[][] {
  return [[{ label: "Allow once", data: `w:${id}:y` }, { label: "For the session", data: `w:${id}:a` }, { label: "Deny", data: `w:${id}:n` }]];
}

/** The card as the owner reads it: what wants to run and where, the summary (secrets masked), how to answer. */
export function cardText(card: { id: string; source: string; request: ApprovalRequested; question?: { text: string; choices?: string[] } }): string {
  const r = card.request;
  if (card.question) {
    const choices = (card.question.choices ?? []).map((c, i) => `${i + 1}. ${c}`);
    return [`[SCV asks you, in ${card.source} session ${r.session_id}, ${r.workspace}]`, redactSecrets(card.question.text), ...choices, `Reply ${card.id} followed by your answer${choices.length ? " (or a choice's number)" : ""}.`].join("\n");
  }
  const personOnly = (r.guard as { person_only?: boolean } | undefined)?.person_only;
  const lines = [
    `[SCV needs you: ${r.tool} (${String(r.risk).replace("_", " ")}) in ${card.source} session ${r.session_id}, ${r.workspace}]`,
    ellipsize(redactSecrets(r.summary), 1500),
    ...(r.guard?.reason ? [`guard: ${r.guard.reason}`] : []),
    ...(personOnly ? ["(this one needs a person: no rule or auto-approval answers it)"] : []),
    `Reply y ${card.id} to allow once, a ${card.id} to allow it for the session, n ${card.id} <reason> to deny.`,
  ];
  return lines.join("\n");
}
