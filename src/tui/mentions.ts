// `@` in the prompt as the app follows it: the file picker opens at a mention being typed, narrows with it, closes
// when it is gone (or Esc closed it for that mention), and its pick replaces the mention; on sending, the files
// mentioned are attached. The picker and the attaching are file-mention.ts', loaded at the first `@`.
import type { Style as Theme } from "../terminal/style";
import type { PromptEditor } from "./editor";
import type { FilePicker } from "./file-mention";
import type { Key } from "./keys";
import { sanitize } from "./text";
import type { ConversationView } from "./view";

export interface MentionContext {
  view: ConversationView;
  theme: Theme;
  cwd: string;
  editor: PromptEditor;
  requestRender(): void;
}

export class Mentions {
  private mentions: typeof import("./file-mention") | undefined;
  private picker: FilePicker | undefined;
  /** The mention Esc closed the picker at: it stays closed until the mention changes. */
  private dismissed: string | undefined;

  constructor(private readonly ctx: MentionContext) {}

  /** Whether the picker is open. */
  get open(): boolean {
    return this.picker !== undefined;
  }

  lines(theme: Theme, width: number): string[] {
    return this.picker?.lines(theme, width) ?? [];
  }

  /** Whether the picker takes this key (Esc, and with a match Up, Down, Tab and Enter); the rest go to the editor. */
  takes(key: Key): boolean {
    return !!this.picker && (key.kind === "escape" || (!this.picker.empty && ["up", "down", "tab", "enter"].includes(key.kind)));
  }

  key(key: Key): void {
    const picked = this.picker!.key(key);
    if (!picked) return;
    const query = this.mentions!.mentionAt(this.ctx.editor.beforeCursor) ?? "";
    this.picker = undefined;
    if (picked.kind === "pick") this.ctx.editor.replaceBeforeCursor(query.length + 1, `@${picked.path} `);
    else this.dismissed = query;
  }

  /** Opens, narrows or closes the picker after each key, by the word before the cursor. */
  async follow(): Promise<void> {
    const { editor } = this.ctx;
    const typed = /(?:^|\s)@[^\s@]*$/.test(editor.beforeCursor);
    if (!typed && !this.picker) return;
    this.mentions ??= await import("./file-mention");
    const query = this.mentions.mentionAt(editor.beforeCursor);
    if (query === undefined || query === this.dismissed) {
      this.picker = undefined;
      return this.ctx.requestRender();
    }
    this.dismissed = undefined;
    if (!this.picker) {
      try {
        this.picker = new this.mentions.FilePicker(this.mentions.workspaceFiles(this.ctx.cwd));
      } catch (e) {
        this.ctx.view.say(`cannot list the workspace's files: ${(e as Error).message}`, this.ctx.theme.yellow);
        return;
      }
    }
    this.picker.update(query);
    this.ctx.requestRender();
  }

  /** The prompt with each `@file` it mentions attached (inlined when small), said in the conversation. */
  async attach(text: string): Promise<string> {
    if (!/(?:^|\s)@\S/.test(text)) return text;
    this.mentions ??= await import("./file-mention");
    const { prompt, attached } = this.mentions.attachMentions(text, this.ctx.cwd);
    if (attached.length) this.ctx.view.say(`attached ${attached.map((p) => `@${sanitize(p)}`).join(", ")}`, this.ctx.theme.dim);
    return prompt;
  }
}
