// Renders the message reference in docs/protocol.md from schema.ts, so the doc cannot drift from the parser.
import { z } from "zod";
import { ERROR_CODES, MAX_LINE_BYTES, notifications, PROTOCOL_VERSION, requests } from "./schema";

const json = (schema: z.ZodType) => {
  const s = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete s.$schema;
  return JSON.stringify(s, null, 1).replace(/\n\s*/g, " ");
};

export const GENERATED_START = "<!-- generated from src/protocol/schema.ts: do not edit below -->";
export const GENERATED_END = "<!-- end of generated reference -->";

export function renderProtocolReference(): string {
  const out: string[] = [GENERATED_START, "", `Protocol version: **${PROTOCOL_VERSION}**. Longest accepted line: ${MAX_LINE_BYTES} bytes.`, ""];
  out.push("### Requests (client to server)", "");
  for (const [method, spec] of Object.entries(requests)) {
    out.push(`#### \`${method}\``, "", spec.description, "", `- params: \`${json(spec.params)}\``, `- result: \`${json(spec.result)}\``, "");
  }
  out.push("### Notifications (server to client)", "");
  for (const [method, spec] of Object.entries(notifications)) {
    out.push(`#### \`${method}\``, "", spec.description, "", `- params: \`${json(spec.params)}\``, "");
  }
  out.push("### Error codes", "", "| code | name |", "|---|---|");
  for (const [name, code] of Object.entries(ERROR_CODES)) out.push(`| ${code} | ${name} |`);
  out.push("", GENERATED_END);
  return out.join("\n");
}

/** Replaces the generated block of a protocol.md text. */
export function withGeneratedReference(doc: string): string {
  const start = doc.indexOf(GENERATED_START);
  const end = doc.indexOf(GENERATED_END);
  if (start === -1 || end === -1) return `${doc.trimEnd()}\n\n${renderProtocolReference()}\n`;
  return doc.slice(0, start) + renderProtocolReference() + doc.slice(end + GENERATED_END.length);
}
