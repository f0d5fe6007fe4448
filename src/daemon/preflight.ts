// The configuration check `scv daemon start` and `scv daemon run` make before a daemon starts: the user file,
// and, when chat channels are configured, the layers a chat session will load in the channels' workspace. A
// daemon that started on a configuration every chat message would fail on would answer each message with the
// same error, and the owner would learn it only from their chat; here they learn it once, where they started it.
import { mkdirSync, statSync } from "node:fs";
import { ConfigError, loadConfig } from "../config/load";
import { defaultChatWorkspace } from "../user-home";

export interface ConfigProblem {
  /** What to print: the problem and how to fix it. */
  message: string;
}

/** The first problem that would stop the daemon or fail every chat message, or undefined when there is none. */
export function daemonConfigProblem(env: Readonly<Record<string, string | undefined>> = process.env): ConfigProblem | undefined {
  let config;
  try {
    config = loadConfig({ env: env as NodeJS.ProcessEnv }).config;
  } catch (e) {
    if (e instanceof ConfigError) return { message: e.message };
    throw e;
  }
  const channels = config.channels;
  if (!channels.dir && !channels.wechat && !channels.feishu) return undefined;
  const workspace = channels.workspace ?? defaultChatWorkspace(env);
  if (!channels.workspace) mkdirSync(workspace, { recursive: true, mode: 0o700 });
  if (!statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) {
    return { message: `channels.workspace ${workspace} is not a directory, so no chat session could start there; create it or set channels.workspace to a directory` };
  }
  try {
    loadConfig({ cwd: workspace, env: env as NodeJS.ProcessEnv });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { message: `chat sessions run in ${workspace} (channels.workspace), where the configuration does not load, so every chat message would be answered with:\n${e.message}` };
  }
  return undefined;
}
