// What the fake Anthropic endpoint checks in a request (the rules the real API enforces that SCV could break),
// and its prompt cache, priced the way the API prices it: a request reads the longest cached prefix that ends at
// one of its cache_control breakpoints (or up to 20 blocks before one), and writes a cache entry at each breakpoint.
import { signThinking, type CacheCounts } from "./anthropic-render";

type Json = Record<string, any>;

const ID = /^[A-Za-z0-9_-]+$/;

/** The problem the API would answer 400 to, or undefined. */
export function anthropicRequestProblem(body: Json, headers: Record<string, string>): string | undefined {
  if (!headers["anthropic-version"]) return "anthropic-version: header is required";
  if (!body || typeof body !== "object") return "The request body must be a JSON object.";
  if (typeof body.model !== "string" || !body.model) return "model: Field required";
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return "max_tokens: Field required";
  if (body.stream !== true) return "The fake model only streams: send \"stream\": true.";
  const thinking = body.thinking;
  if (thinking?.type === "enabled") {
    if (!(thinking.budget_tokens >= 1024)) return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
    if (thinking.budget_tokens >= body.max_tokens) return "`max_tokens` must be greater than `thinking.budget_tokens`.";
  }
  let breakpoints = 0;
  const count = (b: Json) => {
    if (b?.cache_control) breakpoints++;
  };
  for (const [i, t] of (body.tools ?? []).entries()) {
    if (typeof t?.name !== "string" || !/^[A-Za-z0-9_-]{1,128}$/.test(t.name)) return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
    if (!t.input_schema || typeof t.input_schema !== "object") return `tools.${i}.custom.input_schema: Field required`;
    count(t);
  }
  for (const b of body.system ?? []) {
    if (b?.type !== "text" || !b.text) return "system: text content blocks must be non-empty";
    count(b);
  }
  const msgs: Json[] = body.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) return "messages: at least one message is required";
  if (msgs[0]!.role !== "user") return "messages: first message must use the \"user\" role";
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    if (i > 0 && msgs[i - 1]!.role === m.role) return `messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row`;
    if (!Array.isArray(m.content) || m.content.length === 0) return `messages.${i}: all messages must have non-empty content`;
    const open = new Set<string>();
    if (m.role === "user" && i > 0) for (const b of msgs[i - 1]!.content) if (b?.type === "tool_use") open.add(b.id);
    let afterOther = false;
    for (const [j, b] of m.content.entries()) {
      count(b);
      const at = `messages.${i}.content.${j}`;
      if (b.type === "text" && !b.text) return `${at}: text content blocks must be non-empty`;
      if (b.type === "tool_use" && (m.role !== "assistant" || !ID.test(b.id) || typeof b.input !== "object" || Array.isArray(b.input))) return `${at}: invalid tool_use block`;
      if (b.type === "thinking" || b.type === "redacted_thinking") {
        if (m.role !== "assistant") return `${at}: thinking blocks may only appear in assistant messages`;
        if (b.cache_control) return `${at}.thinking.cache_control: Extra inputs are not permitted`;
        if (b.type === "thinking" && b.signature !== signThinking(b.thinking ?? "")) return `${at}: Invalid \`signature\` in \`thinking\` block`;
      }
      if (b.type === "tool_result") {
        if (m.role !== "user") return `${at}: tool_result blocks may only appear in user messages`;
        if (afterOther) return `${at}: tool_result blocks must come first in a user message, before any other content`;
        if (!open.delete(b.tool_use_id)) return `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      } else afterOther = true;
    }
    if (open.size) return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...open].join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    if (m.role === "assistant" && i === msgs.length - 1 && m.content.some((b: Json) => b.type === "tool_use")) return `messages.${i}: the last assistant message has tool_use blocks without results`;
  }
  if (breakpoints > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  return undefined;
}

/** The least a cached prefix may be (Sonnet and Opus models). */
const MIN_CACHE_TOKENS = 1024;
const LOOKBACK = 20;

/** The fake's prompt cache: prefixes (by hash) it holds. */
export class FakePromptCache {
  private readonly entries = new Set<string>();

  /** Prices a request: reads the longest cached prefix at or just before a breakpoint, writes one at each breakpoint. */
  price(body: Json): CacheCounts {
    const blocks: { json: string; breakpoint: boolean }[] = [];
    const strip = ({ cache_control, ...rest }: Json) => ({ rest, breakpoint: !!cache_control });
    for (const t of body.tools ?? []) {
      const { rest, breakpoint } = strip(t);
      blocks.push({ json: `tool:${JSON.stringify(rest)}`, breakpoint });
    }
    for (const b of body.system ?? []) {
      const { rest, breakpoint } = strip(b);
      blocks.push({ json: `system:${JSON.stringify(rest)}`, breakpoint });
    }
    for (const m of body.messages ?? []) {
      for (const b of m.content ?? []) {
        const { rest, breakpoint } = strip(b);
        blocks.push({ json: `${m.role}:${JSON.stringify(rest)}`, breakpoint });
      }
    }
    const hashes: string[] = [];
    const tokens: number[] = [];
    let h = `${body.model}`;
    let chars = 0;
    for (const b of blocks) {
      h = new Bun.CryptoHasher("sha256").update(h).update(b.json).digest("hex");
      chars += b.json.length;
      hashes.push(h);
      tokens.push(Math.ceil(chars / 4));
    }
    const total = tokens.at(-1) ?? 0;
    const points = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = 0;
    for (const bp of points) {
      for (let j = bp; j >= Math.max(0, bp - LOOKBACK); j--) {
        if (this.entries.has(hashes[j]!)) {
          read = Math.max(read, tokens[j]!);
          break;
        }
      }
    }
    let written = read;
    for (const bp of points) {
      if (tokens[bp]! < MIN_CACHE_TOKENS) continue;
      this.entries.add(hashes[bp]!);
      written = Math.max(written, tokens[bp]!);
    }
    return { input_tokens: total - written, cache_creation_input_tokens: written - read, cache_read_input_tokens: read };
  }
}
