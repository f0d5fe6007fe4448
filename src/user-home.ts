// The user's home directory: $HOME, else the system's record of it. node:os is loaded only in that second
// case: loading it costs about half a millisecond of start-up, which every nested SCV child would pay.
export function userHome(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.HOME || (require("node:os") as typeof import("node:os")).homedir();
}

/**
 * Where chat sessions work when `channels.workspace` is unset: a folder of their own in the home (`~/scv-chat`),
 * never the home itself, whose start-up files and dot folders a chat's commands could otherwise reach.
 */
export function defaultChatWorkspace(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return `${userHome(env).replace(/\/+$/, "")}/scv-chat`;
}
