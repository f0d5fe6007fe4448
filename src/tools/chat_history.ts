// chat_history: reads this conversation's chat log (search, episodes, read) and nothing else; read-only.
import { lazySchema } from "../lazy-schema";
import { fitJson, listLogEpisodes, readLogEpisode, searchLog } from "../chatlog/history";
import { EPISODE_ID } from "../chatlog/paths";
import { chatScope } from "./chat-place";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";

const DATE = lazySchema((z) => z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD"));

const Args = lazySchema((z) => z.discriminatedUnion("action", [
  z.strictObject({
    action: z.literal("search"),
    query: z.string().trim().min(1, "must name what to look for"),
    limit: z.number().int().min(1).max(100).default(10),
  }),
  z.strictObject({
    action: z.literal("episodes"),
    before: DATE.optional(),
    after: DATE.optional(),
    limit: z.number().int().min(1).max(200).default(20),
  }),
  z.strictObject({
    action: z.literal("read"),
    episode: z.string().regex(EPISODE_ID, "must be an episode ID as <year>/<week>/<start>, e.g. 2026/2026-09-21_2026-09-27/2026-09-26T14-04-05"),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(100).default(30),
  }),
]));

export function createChatHistoryTool(scope: SessionScope): Tool | undefined {
  const chat = chatScope(scope);
  const logDir = chat?.logDir;
  if (!logDir) return undefined;
  return defineTool({
    name: "chat_history",
    kind: "search",
    description:
      "Reads this chat's log. search: messages containing every word of query (newest first). episodes: conversations newest first (each /new starts one). read: an episode's messages from offset, with files' paths or states (media, kept, gone, not_saved, sent).",
    parameters: Args,
    risk: "read_only",
    summary: (a) => (a.action === "search" ? `search the chat log for "${a.query}"` : a.action === "read" ? `read chat episode ${a.episode}` : "list chat episodes"),
    label: (a) => `chat_history ${a.action}`,
    async execute(a, ctx) {
      if (a.action === "search") return fitJson(searchLog(logDir, a.query, a.limit), "results", ctx.outputLimitBytes);
      if (a.action === "episodes") return fitJson(listLogEpisodes(logDir, a), "episodes", ctx.outputLimitBytes);
      try {
        return fitJson(readLogEpisode(logDir, a.episode, a.offset, a.limit), "messages", ctx.outputLimitBytes);
      } catch (e) {
        throw new ToolError((e as Error).message);
      }
    },
  });
}
