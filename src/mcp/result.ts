// A tool result as the model reads it: text as is; images, audio and binary resources described (the tool
// output is text); structured content as JSON when the server sent no text. Configured secrets are replaced
// by their names and the whole is cut to the tool output limit.
import { limitText } from "../text/cut";

interface ContentItem {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

export interface CallResult {
  content?: ContentItem[];
  structuredContent?: unknown;
  isError?: boolean;
}

const base64Bytes = (data: string | undefined) => (data ? Math.floor((data.length * 3) / 4) : 0);

function itemText(item: ContentItem): string {
  switch (item.type) {
    case "text":
      return item.text ?? "";
    case "image":
    case "audio":
      return `[${item.type} ${item.mimeType ?? "of unknown type"}, ${base64Bytes(item.data)} bytes, not shown]`;
    case "resource": {
      const r = item.resource ?? {};
      if (typeof r.text === "string") return `[resource ${r.uri ?? ""}]\n${r.text}`;
      return `[resource ${r.uri ?? ""} ${r.mimeType ?? ""}, ${base64Bytes(r.blob)} bytes, not shown]`.replace(/ +/g, " ");
    }
    case "resource_link":
      return `[resource link ${item.uri ?? ""}${item.name ? ` (${item.name})` : ""}]`;
    default:
      return `[${item.type} content, not shown]`;
  }
}

/** Replaces each secret value with <redacted:NAME>. */
export function scrub(text: string, secrets: readonly { name: string; value: string }[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s.value).join(`<redacted:${s.name}>`);
  return out;
}

export function resultOutput(result: CallResult, secrets: readonly { name: string; value: string }[], limitBytes: number): { ok: boolean; output: string } {
  const items = Array.isArray(result.content) ? result.content : [];
  const parts = items.map(itemText);
  const hasText = items.some((i) => i.type === "text");
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const text = parts.join("\n") || (result.isError ? "the tool failed without saying why" : "(no output)");
  return { ok: !result.isError, output: limitText(scrub(text, secrets), limitBytes) };
}
