// What Enter on the prompt sends: a slash command of SCV's (run-command.ts), a command file of the person's
// (its prompt as a turn), or a prompt, with the images it names and the `@files` it mentions attached.
import { statSync } from "node:fs";
import type { CommandFile } from "../command-files/index";
import { completions, didYouMean, parseSlash, SLASH_ALIASES, SLASH_COMMANDS } from "./commands";
import type { SessionScreen } from "./context";
import { runSlashCommand, type SlashContext } from "./run-command";
import type { SessionControl } from "./session-control";
import { truncate } from "./text";
import type { UserCommands } from "./user-commands";

export interface SubmitContext extends SessionScreen {
  cwd: string;
  /** The person's home, for an image path written `~/…`. */
  home: string | undefined;
  slash: SlashContext;
  session: SessionControl;
  userCommands(): UserCommands | undefined;
  /** Keeps the text in the prompt history (Up/Down, Ctrl-R). */
  remember(text: string): void;
  /** The prompt with each `@file` it mentions attached. */
  withMentionedFiles(text: string): Promise<string>;
}

/** Sends what was typed; a failure is said in the conversation, never thrown. */
export async function submit(ctx: SubmitContext, text: string): Promise<void> {
  const { view, theme } = ctx;
  view.setNotice(undefined);
  ctx.remember(text);
  const slash = parseSlash(text);
  if (slash && SLASH_COMMANDS.some((c) => c.name === slash.name)) return runSlashCommand(ctx.slash, slash.name, slash.arg);
  const own = slash && ctx.userCommands()?.find(slash.name);
  if (own) return runUserCommand(ctx, own, slash.arg);
  if (slash && text.trim().split(/\s/)[0] === text.trim()) {
    // Enter on a filtered menu runs its highlighted (first) row: `/st` with /status the only match opens /status.
    const menu = completions(text.trim(), ctx.userCommands()?.menu);
    if (menu.length) return submit(ctx, `/${menu[0]!.name}`);
    const near = didYouMean(slash.name, [...SLASH_COMMANDS.map((c) => c.name), ...Object.keys(SLASH_ALIASES), ...(ctx.userCommands()?.files.map((c) => c.name) ?? [])]);
    view.say(`unknown command /${slash.name}${near ? `; did you mean /${near}?` : ""} (/help lists the commands)`, theme.yellow);
    return;
  }
  try {
    await sendPrompt(ctx, text);
  } catch (e) {
    view.say(`could not send: ${(e as Error).message}`, theme.red);
  }
  ctx.requestRender();
}

/** A prompt as a turn (queued behind a running one), with its images; one that cannot be attached stays behind. */
async function sendPrompt(ctx: SubmitContext, text: string): Promise<void> {
  const { view, theme } = ctx;
  const images = imagePathsIn(text, ctx.cwd, ctx.home);
  text = await ctx.withMentionedFiles(text);
  let r: { queued: boolean };
  try {
    r = await ctx.request("turn.start", { session_id: ctx.sessionId(), prompt: text, ...(images.length ? { images } : {}) });
    if (images.length) view.say(`attached ${images.length === 1 ? "image" : `${images.length} images`}: ${images.map((p) => p.split("/").pop()).join(", ")}`, theme.dim);
  } catch (e) {
    if (!images.length) throw e;
    // The prompt still goes: only the image stays behind, and the person is told why.
    view.say(`image not attached: ${(e as Error).message}`, theme.yellow);
    r = await ctx.request("turn.start", { session_id: ctx.sessionId(), prompt: text });
  }
  if (r.queued) view.say(`queued: ${truncate(text.split("\n")[0]!, 60)}`, theme.dim);
}

/** A command file: its prompt as a turn, its `model` for that turn only, its `allowed-tools` unasked in it. */
async function runUserCommand(ctx: SubmitContext, c: CommandFile, args: string): Promise<void> {
  const { view, theme, session } = ctx;
  const before = session.model;
  try {
    if (c.model) await runSlashCommand(ctx.slash, "model", c.model);
    const r = await ctx.request("turn.start", { session_id: ctx.sessionId(), prompt: ctx.userCommands()!.prompt(c, args) });
    ctx.userCommands()!.started(c, r.turn_id);
    // session.configure acts from the next turn on: the command's turn keeps the model it started with.
    if (c.model && before && session.model !== before) {
      if (r.queued) view.say(`/${c.name} is queued; it runs on ${session.model}: /model ${before} switches back`, theme.dim);
      else await ctx.request("session.configure", { session_id: ctx.sessionId(), model: before }).then((x: { model: string; context_window?: number }) => ((session.model = x.model), (session.contextWindow = x.context_window)));
    }
  } catch (e) {
    view.say(`/${c.name}: ${(e as Error).message}`, theme.red);
  }
  ctx.requestRender();
}

/**
 * Image files named in a prompt, as a terminal pastes a dragged file: a path (absolute, ~/…, or relative to the
 * workspace) ending .png/.jpg/.jpeg/.gif/.webp, maybe quoted or with backslash-escaped spaces, that exists.
 */
export function imagePathsIn(text: string, cwd: string, home: string | undefined): string[] {
  const found: string[] = [];
  const words = text.match(/'[^'\n]+'|"[^"\n]+"|(?:\\ |\S)+/g) ?? [];
  for (const word of words) {
    let p = word.replace(/^(['"])(.*)\1$/, "$2").replace(/\\ /g, " ");
    if (!/\.(png|jpe?g|gif|webp)$/i.test(p)) continue;
    if (p.startsWith("~/") && home) p = `${home}${p.slice(1)}`;
    const abs = p.startsWith("/") ? p : `${cwd}/${p}`;
    try {
      if (statSync(abs).isFile() && !found.includes(abs)) found.push(abs);
    } catch {
      // not a file: just words
    }
  }
  return found;
}
