// How an MCP server's tool is named to the model: `<server>__<tool>`, sanitised to the characters every provider
// accepts in a function name (A-Z a-z 0-9 _ -) and at most 64 characters; a longer name keeps its start and
// ends in a digest of the whole, so two long names stay apart.
import { sha256Hex } from "../digest";

export const OFFERED_NAME_MAX = 64;
export const SERVER_TOOL_SEPARATOR = "__";

export function offeredName(server: string, tool: string): string {
  const name = `${server}${SERVER_TOOL_SEPARATOR}${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length <= OFFERED_NAME_MAX) return name;
  const digest = sha256Hex(`${server}\0${tool}`).slice(0, 8);
  return `${name.slice(0, OFFERED_NAME_MAX - digest.length - 1)}_${digest}`;
}
