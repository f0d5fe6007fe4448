// The parameters schemas of the tools a session usually offers, by tool name, whose JSON Schemas are made at
// build time (json-schemas.ts). A tool missing here, or one whose parameters depend on the session, converts
// its schema at runtime instead.
import type { z } from "zod";
import { AgentArgs } from "./agent";
import { AgentCancelArgs } from "./agent_cancel";
import { AgentMergeArgs } from "./agent_merge";
import { AgentStatusArgs } from "./agent_status";
import { DefaultAgentWaitArgs } from "./agent_wait";
import { DefaultBashArgs } from "./bash";
import { ClarifyArgs } from "./clarify";
import { MemoryArgs } from "./memory";
import { EditArgs } from "./edit";
import { GlobArgs } from "./glob";
import { GrepArgs } from "./grep";
import { PlanArgs } from "./plan";
import { ReadArgs } from "./read";
import { ReadSkillArgs } from "./read_skill";
import { ScheduleArgs } from "./schedule";
import { SessionSearchArgs } from "./session_search";
import { SkillManageArgs } from "./skill_manage";
import { Params as WebFetchArgs } from "./web_fetch";
import { WriteArgs } from "./write";

export const PREBUILT_PARAMETERS: Record<string, z.ZodType> = {
  read: ReadArgs,
  bash: DefaultBashArgs,
  agent_wait: DefaultAgentWaitArgs,
  agent_status: AgentStatusArgs,
  agent_cancel: AgentCancelArgs,
  agent_merge: AgentMergeArgs,
  write: WriteArgs,
  edit: EditArgs,
  grep: GrepArgs,
  glob: GlobArgs,
  plan: PlanArgs,
  clarify: ClarifyArgs,
  web_fetch: WebFetchArgs,
  agent: AgentArgs,
  read_skill: ReadSkillArgs,
  session_search: SessionSearchArgs,
  skill_manage: SkillManageArgs,
  memory: MemoryArgs,
  schedule: ScheduleArgs,
};
