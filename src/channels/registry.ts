// The adapters for the channels configured in [channels.*]: adding a platform is one more entry here.
import type { Config } from "../config/schema";
import type { ChannelAdapter } from "./core/adapter";
import { DirAdapter } from "./dir/adapter";

export function configuredAdapters(config: Config): ChannelAdapter[] {
  const adapters: ChannelAdapter[] = [];
  const dir = config.channels.dir;
  if (dir) adapters.push(new DirAdapter({ path: dir.path, owner: dir.owner, account: dir.account }));
  return adapters;
}
