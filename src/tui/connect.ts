// What `scv` in a terminal loads after its first frame is on screen: the in-process server and its client, the
// session store and the usage ledger, the configuration, the person's command files and prompt history, and the
// link that offers an unanswered card to the owner where they are. Every module here is imported when it runs,
// so the first frame waits for none of them.
import type { AwayLink, RemoteAnswer } from "../daemon/away-link";
import type { Config } from "../config/schema";
import type { NotificationArgs } from "../protocol/schema";
import type { SessionStore } from "../sessions/index";
import type { Style as Theme } from "../terminal/style";
import { SLASH_ALIASES, SLASH_COMMANDS } from "./commands";
import type { PromptEditor } from "./editor";
import type { UserCommands } from "./user-commands";
import type { ConversationView } from "./view";

export type Client = {
  request<T = any>(method: string, params: unknown): Promise<T>;
  closeAll(): Promise<void>;
};

export interface ConnectContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  view: ConversationView;
  theme: Theme;
  /** Seeded with the prompt history. */
  editor: PromptEditor;
  requestRender(): void;
  onNotification(...notification: NotificationArgs): void;
  /** The owner answered a card of this terminal elsewhere (their chat, the web page). */
  answeredAway(id: string, a: RemoteAnswer): void;
}

export interface Connected {
  client: Client;
  store: SessionStore;
  config: Config;
  userCommands: UserCommands;
  promptHistory: typeof import("./prompt-history");
  away: AwayLink;
}

/** Loads the server, stops what a killed SCV left, opens the store and says what waited for the person. */
export async function loadServer(ctx: ConnectContext): Promise<Connected> {
  const { view, theme, env } = ctx;
  const { createInProcessClient } = await import("../server/in-process-client");
  const { recordRunsIn, requestSubreaper } = await import("../process/index");
  const { reconcileAtStartup } = await import("../agents/reconcile");
  const { loadConfig, scvHome } = await import("../config/load");
  const { openSessionStore } = await import("../sessions/index");
  const home = scvHome(env);
  // As in exec: escapees reparent to us, and every run is recorded so a later SCV stops what a killed one left.
  requestSubreaper();
  recordRunsIn(home);
  void reconcileAtStartup(home);
  const store = openSessionStore({ home });
  // Index notices (a rebuild) belong on the screen, not on stderr under it.
  (await import("../ledger/index")).ledgerFor(store.home, { warn: (m) => (view.say(`note: ${m}`, theme.yellow), ctx.requestRender()) });
  const config = loadConfig({ cwd: ctx.cwd, env }).config;
  const userCommands = (await import("./user-commands")).UserCommands.load({ scvHome: home, workspace: ctx.cwd, builtins: [...SLASH_COMMANDS.map((c) => c.name), ...Object.keys(SLASH_ALIASES)] });
  for (const n of userCommands.notices) view.say(`note: ${n}`, theme.yellow);
  const promptHistory = await import("./prompt-history");
  ctx.editor.seedHistory(promptHistory.readPromptHistory(store.home));
  store.prune(config.sessions.keep_days);
  const { AwayLink } = await import("../daemon/away-link");
  const away = new AwayLink({ scvHome: home, afterSeconds: config.notify?.after_seconds ?? 60, longTurnSeconds: config.notify?.long_turn_seconds ?? 120, source: "the terminal", answered: ctx.answeredAway });
  const client = createInProcessClient({ env, sessions: store, baseDepth: Number(env.SCV_DELEGATION_DEPTH ?? 0) || 0, onNotification: ctx.onNotification });
  await client.request("initialize", { protocol_version: 3, client: { name: "scv-tui" } });
  await showScheduleNotices(home, ctx);
  return { client, store, config, userCommands, promptHistory, away };
}

/** What schedules could not tell the owner in a chat (no channel, or it was logged out), shown once. */
async function showScheduleNotices(home: string, { view, theme }: ConnectContext) {
  const { hasNotices, takeNotices } = await import("../schedules/notices");
  if (!hasNotices(home)) return;
  for (const n of takeNotices(home)) view.say(`while you were away (${n.at}): ${n.text}`, theme.yellow);
}
