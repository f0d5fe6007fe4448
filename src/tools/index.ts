// Which tools a session offers. Each tool lives in its own file and exports a factory that returns
// undefined when the tool is not offered in this session; adding a tool is one more line here.
import { agentPromptSection } from "../agents/engine";
import { createAgentTool } from "./agent";
import { createAgentCancelTool } from "./agent_cancel";
import { createAgentMergeTool } from "./agent_merge";
import { createAgentStatusTool } from "./agent_status";
import { createAgentWaitTool } from "./agent_wait";
import { createBashTool } from "./bash";
import { prebuiltJsonSchemas } from "./json-schemas" with { type: "macro" };
import { PREBUILT_PARAMETERS } from "./parameters";
import { chatPromptSection } from "./chat-place";
import { createChatAttachTool } from "./chat_attach";
import { createClarifyTool } from "./clarify";
import { createChatHistoryTool } from "./chat_history";
import { createChatKeepTool } from "./chat_keep";
import { createMemoryTool, memorySaveStep } from "./memory";
import { createEditTool } from "./edit";
import { createGlobTool } from "./glob";
import { createGrepTool } from "./grep";
import { createPlanTool } from "./plan";
import { createReadTool } from "./read";
import { createScheduleTool } from "./schedule";
import { createReadSkillTool, skillsPromptSections } from "./read_skill";
import { createSessionSearchTool } from "./session_search";
import { createSkillManageTool } from "./skill_manage";
import { type SessionScope } from "../scope";
import { seedJsonSchema, ToolRegistry, type Tool } from "./tool";
import { createWebFetchTool } from "./web_fetch";
import { createWebSearchTool } from "./web_search";
import { createWriteTool } from "./write";

type ToolFactory = (scope: SessionScope) => Tool | undefined;

// Made when the binary was built (a macro), so no session converts these schemas at its start.
for (const [name, schema] of Object.entries(prebuiltJsonSchemas())) seedJsonSchema(PREBUILT_PARAMETERS[name]!, schema);

const FACTORIES: ToolFactory[] = [
  createReadTool,
  createWriteTool,
  createEditTool,
  createGrepTool,
  createGlobTool,
  createPlanTool,
  createClarifyTool,
  createBashTool,
  createWebFetchTool,
  createWebSearchTool,
  createAgentTool,
  createAgentWaitTool,
  createAgentStatusTool,
  createAgentCancelTool,
  createAgentMergeTool,
  createReadSkillTool,
  createSkillManageTool,
  createSessionSearchTool,
  createChatAttachTool,
  createChatHistoryTool,
  createChatKeepTool,
  createMemoryTool,
  createScheduleTool,
];

export function buildTools(scope: SessionScope, opts: { enabled: boolean }): ToolRegistry {
  const registry = new ToolRegistry();
  if (!opts.enabled) return registry;
  for (const factory of FACTORIES) {
    const tool = factory(scope);
    if (tool) registry.register(tool);
  }
  return registry;
}

/** System-prompt sections generated from the tools this session offers. */
export function promptSections(scope: SessionScope, tools: ToolRegistry): string[] {
  const sections: string[] = [];
  if (tools.get("agent")) sections.push(agentPromptSection(scope) ?? "");
  sections.push(...skillsPromptSections(scope, tools));
  sections.push(chatPromptSection(scope, tools.list().map((t) => t.name)) ?? "");
  return sections.filter(Boolean);
}

/** A step the model gets before a threshold compaction, from the tools that want one (memory's save step). */
export function preCompactionStep(_scope: SessionScope, tools: ToolRegistry): { prompt: string; tools: string[]; maxCalls: number } | undefined {
  return memorySaveStep(tools);
}
