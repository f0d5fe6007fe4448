// An ACP prompt as the text of one SCV turn: text as written, resource links as references the model can
// `read`, and resources the editor inlined (a selection, an open file) as blocks after it, each naming its URI.
import type { PromptBlock } from "../protocol/acp";
import { ACP_ERRORS, AcpError } from "./rpc";

export function promptText(blocks: PromptBlock[]): string {
  const parts: string[] = [];
  const attached: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case "text":
        parts.push(b.text);
        break;
      case "resource_link":
        parts.push(`[${b.title ?? b.name}](${b.uri})`);
        break;
      case "resource":
        if ("text" in b.resource) attached.push(`<context ref="${b.resource.uri}">\n${b.resource.text}\n</context>`);
        else attached.push(`<context ref="${b.resource.uri}">(binary content of type ${b.resource.mimeType ?? "unknown"}, not shown)</context>`);
        break;
      case "image":
      case "audio":
        throw new AcpError(ACP_ERRORS.invalid_params, `SCV takes no ${b.type} in a prompt (initialize said promptCapabilities.${b.type}: false); send text, resource links or embedded resources`);
    }
  }
  const text = [parts.join(" ").trim(), ...attached].filter(Boolean).join("\n\n");
  if (!text) throw new AcpError(ACP_ERRORS.invalid_params, "the prompt is empty; send at least one text block");
  return text;
}
