// The hooks of the daemon's own moments (docs/hooks.md): a schedule fired (ScheduleFired) and the outbox gave up
// on a reply (ChatUndeliverable). They run as a session's hooks do, with the environment `bash` gets; nothing
// waits for them, and a failing one is written to the daemon's log once.
import { configuredSecrets } from "../config/configured-secrets";
import type { Config, HookEvent } from "../config/schema";
import { createHooks, type Hooks } from "../hooks/index";
import { userHome } from "../user-home";
import { bashEnvironment } from "../tools/bash-env";

export interface DaemonHooks {
  /** Runs the event's hooks in `cwd` (default the user's home) without waiting; never throws. */
  fire(event: HookEvent, input: Record<string, unknown>, cwd?: string): void;
}

export function daemonHooks(config: Config, env: NodeJS.ProcessEnv, log: (line: string) => void): DaemonHooks {
  const byCwd = new Map<string, Hooks>();
  const hooksIn = (cwd: string) => {
    let hooks = byCwd.get(cwd);
    if (!hooks) {
      hooks = createHooks({ hooks: config.hooks, cwd, env: bashEnvironment(env, config.tools.bash_env), secrets: configuredSecrets(config, env), report: (m) => log(`hooks: ${m}`) });
      byCwd.set(cwd, hooks);
    }
    return hooks;
  };
  return {
    fire(event, input, cwd = userHome(env)) {
      if (!config.hooks?.[event]?.length) return;
      void hooksIn(cwd).run(event, input).catch((e) => log(`hooks: ${event}: ${(e as Error).message}`));
    },
  };
}
