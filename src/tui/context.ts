// What a part of the TUI that works on the open session is handed by the app (src/tui/app.ts): the conversation
// view to say things in, the theme, the open session's ID ("" while none is), a request to the in-process
// server, and a way to ask for the next frame. The parts never hold the client or the app themselves.
import type { Style as Theme } from "../terminal/style";
import type { ConversationView } from "./view";

export interface SessionScreen {
  view: ConversationView;
  theme: Theme;
  sessionId(): string;
  request<T = any>(method: string, params: unknown): Promise<T>;
  requestRender(): void;
}
