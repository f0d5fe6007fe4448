// The tool extension contract: a tool is one defineTool({...}) in its own file. The wrapper owns argument
// validation, error-to-result conversion and output limits, so the turn loop holds no tool-specific code.
import type { z } from "zod";
import { lazySchema, zod } from "../lazy-schema";
import { redactSecrets } from "../text/redact";
import type { ImageRef } from "../provider/images";
import { ToolError } from "../errors";
import type { FileChange, SessionScope, ToolRisk } from "../scope";
import { ellipsize, limitText } from "../text/cut";
import type { GuardVerdict } from "../guard/index";

/** A tool call's own context. */
export interface ToolCallContext extends SessionScope {
  callId: string;
  signal: AbortSignal;
  /** Bytes of result text the model may see (tools.output_limit_bytes). */
  outputLimitBytes: number;
  /** A short status line for the client (tool.progress); never enters history or the result. */
  progress(line: string): void;
  /**
   * Puts a request the running tool relays (a delegated agent's own permission request, a nested SCV's approval)
   * through the session's approval gate, as this call (or as the relayed `tool` when given). Absent when no gate
   * can be asked: deny.
   */
  approve?(request: { tool?: string; risk: ToolRisk; summary: string } & Pick<SourceApprovalRequest, "personOnly" | "fingerprint" | "rememberable">): Promise<{ approved: boolean; reason: string; remember?: "workspace" | "user" }>;
  /** Puts a question to the person and waits for the answer (the `clarify` tool); absent: nobody can be asked. */
  ask?(question: Question): Promise<QuestionOutcome>;
}

/** A question the model puts to the person, with up to four choices they may pick from. */
export interface Question {
  question: string;
  choices?: string[];
}

/** How a question ended: the person's words, or why there are none. */
export type QuestionOutcome = { by: "person"; answer: string } | { by: "declined" | "timeout" | "cancelled" | "nobody" };

export interface ToolResult {
  ok: boolean;
  /** What the model sees. */
  output: string;
  /** Extra fields for the client's tool.completed event (for example background jobs started). */
  event?: Record<string, unknown>;
  /** How the outcome reads to a person, shown after the call's label: `exit 0, 1.2 s`, `+12 -3 lines`. */
  display?: string;
  /** The result as a person reads it, where `output` is written for the model (an agent's JSON): its reply text. */
  preview?: string;
  /** Images for the model (references to files), sent after the step's tool results. */
  images?: ImageRef[];
}

/** Files whose texts together pass this are shown by the summary's diff alone. */
const CHANGE_MAX_CHARS = 256 * 1024;

/** A FileChange of two texts, or undefined when they are too large to send whole. */
export function fileChange(path: string, before: string | null, after: string): FileChange | undefined {
  if ((before?.length ?? 0) + after.length > CHANGE_MAX_CHARS) return undefined;
  const mask = (text: string) => text.split("\n").map(redactSecrets).join("\n");
  return { path, old_text: before === null ? null : mask(before), new_text: mask(after) };
}

export type Assessment<A> =
  | { ok: true; args: A; risk: ToolRisk; summary: string; label: string; guard?: GuardVerdict; change?: FileChange; edits?: string }
  | { ok: false; result: ToolResult };

/** What kind of action a tool takes, as an editor shows it (ACP's tool kinds); absent: judged by its risk. */
export type ToolKind = "read" | "edit" | "execute" | "fetch" | "search" | "think" | "other";

export interface Tool<A = any> {
  name: string;
  kind?: ToolKind;
  /**
   * Offered by name only for now (a large MCP set over its schema budget): callable, but its schema is left out
   * of model requests until a tool loads it; read at each step.
   */
  readonly deferred?: boolean;
  description: string;
  /** JSON Schema offered to the model. */
  jsonSchema: Record<string, unknown>;
  /** Validates arguments and decides risk and the approval summary; refusals happen here, before approval. */
  assess(rawArgs: unknown, ctx: ToolCallContext): Promise<Assessment<A>>;
  /** Runs an assessed call. Never throws. */
  run(args: A, ctx: ToolCallContext): Promise<ToolResult>;
}

export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  /** What kind of action the tool takes (`read`, `edit`, `search`…), for clients that show it. */
  kind?: ToolKind;
  description: string;
  parameters: S;
  /** JSON Schema tweaks the zod schema cannot carry (for example a config-driven maximum). */
  jsonSchema?: Record<string, unknown>;
  risk: ToolRisk | ((args: z.infer<S>, ctx: ToolCallContext) => ToolRisk | Promise<ToolRisk>);
  summary: (args: z.infer<S>, ctx: ToolCallContext) => string | Promise<string>;
  /**
   * The call as a person would describe it (`$ cargo test`, `fetch https://…`); defaults to the summary's first
   * line. Credential-looking values are masked and the length bounded before a client sees it.
   */
  label?: (args: z.infer<S>) => string;
  /**
   * The command guard's verdict on this call (src/guard), for tools that run commands: `allow` runs unasked,
   * `block` is refused whoever approves, `prompt` asks as the risk says. Shown in tool.started and the approval.
   */
  guard?: (args: z.infer<S>, ctx: ToolCallContext) => GuardVerdict;
  /** The file the call will change, whole before and after, asked after `summary` (see FileChange). */
  change?: (args: z.infer<S>, ctx: ToolCallContext) => FileChange | undefined;
  /**
   * The workspace file the call changes, for a tool that changes one file (edit, write): a session in
   * accept-edits mode runs such a call unasked unless the path looks secret-like.
   */
  editsPath?: (args: z.infer<S>) => string;
  execute: (args: z.infer<S>, ctx: ToolCallContext) => Promise<ToolResult | string>;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Each parameters schema's JSON Schema, made once per process: tools are defined again for every session, and
 * converting their schemas is a few milliseconds of every session start. Shared read-only. The usual tools' are
 * made at build time and seeded here (tools/index.ts), so even a process's first session skips the conversion.
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/** Records the JSON Schema `jsonSchemaOf(parameters)` returned when the binary was built. */
export function seedJsonSchema(parameters: z.ZodType, schema: Record<string, unknown>): void {
  jsonSchemas.set(parameters, schema);
}

export function jsonSchemaOf(parameters: z.ZodType): Record<string, unknown> {
  let schema = jsonSchemas.get(parameters);
  if (!schema) {
    schema = zod().toJSONSchema(parameters, { io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    jsonSchemas.set(parameters, schema);
  }
  return schema;
}

/**
 * Parameters that depend on a configured pair of timeouts (a default and a ceiling, as bash and agent_wait take):
 * one schema per pair and process, so its JSON Schema is converted once. `prebuilt`, the schema for the default
 * pair, is a stand-in whose JSON Schema is made at build time (tools/parameters.ts).
 */
export function parametersByTimeouts<S extends z.ZodType>(build: (dflt: number, max: number) => S, defaults: readonly [number, number]) {
  const key = (dflt: number, max: number) => `${dflt}/${max}`;
  const prebuilt = lazySchema(() => build(defaults[0], defaults[1]));
  const made = new Map<string, S>([[key(defaults[0], defaults[1]), prebuilt]]);
  return {
    prebuilt,
    for(dflt: number, max: number): S {
      let schema = made.get(key(dflt, max));
      if (!schema) made.set(key(dflt, max), (schema = build(dflt, max)));
      return schema;
    },
  };
}

export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool<z.infer<S>> {
  if (!TOOL_NAME.test(def.name)) throw new Error(`tool name "${def.name}" must match ${TOOL_NAME}`);
  const jsonSchema = { ...jsonSchemaOf(def.parameters), ...def.jsonSchema };
  return {
    name: def.name,
    ...(def.kind ? { kind: def.kind } : {}),
    description: def.description,
    jsonSchema,
    async assess(rawArgs, ctx) {
      const parsed = def.parameters.safeParse(rawArgs);
      if (!parsed.success) {
        return { ok: false, result: failure(invalidArgumentsMessage(def.name, parsed.error)) };
      }
      try {
        const args = parsed.data;
        const risk = typeof def.risk === "function" ? await def.risk(args, ctx) : def.risk;
        const summary = await def.summary(args, ctx);
        const label = def.label?.(args) ?? summary.split("\n", 1)[0]!;
        const guard = def.guard?.(args, ctx);
        const change = def.change?.(args, ctx);
        const edits = def.editsPath?.(args);
        return { ok: true, args, risk, summary, label: displayLine(label) || def.name, ...(guard ? { guard } : {}), ...(change ? { change } : {}), ...(edits !== undefined ? { edits } : {}) };
      } catch (e) {
        return { ok: false, result: failure(errorText(e)) };
      }
    },
    async run(args, ctx) {
      try {
        const out = await def.execute(args, ctx);
        const result = typeof out === "string" ? { ok: true, output: out } : out;
        return { ...result, output: limitText(result.output, ctx.outputLimitBytes) };
      } catch (e) {
        return failure(ctx.signal.aborted ? "cancelled" : errorText(e));
      }
    },
  };
}

const LABEL_MAX_CHARS = 160;

/** One line for a person: control characters flattened, credential-looking values masked, length bounded. */
export function displayLine(text: string, maxChars = LABEL_MAX_CHARS): string {
  const flat = redactSecrets(text.replace(/\r?\n/g, " ⏎ ").replace(/\p{Cc}/gu, " ")).trim();
  return ellipsize(flat, maxChars);
}

const ARGUMENT_MAX_CHARS = 2000;
/**
 * How far past the cut a long string is still masked, so a credential that straddles the cut is seen whole; the
 * rest is never scanned (a write's many-megabyte content is shown as its first 2000 characters).
 */
const ARGUMENT_MASK_MARGIN = 64 * 1024;
/** Argument names that hold a credential (`api_key`, `token`, `auth_token`, `password`), not ones that merely contain the word. */
const SECRET_KEY = /(?:^|[_-])(?:api_?key|key|token|secret|password|passwd|authorization|cookie)$/i;

/**
 * A tool call's arguments as clients may see and record them: strings cut to a bounded length with credential-
 * looking values masked (the redaction progress lines use), values under secret-sounding keys masked whole.
 */
export function argumentsForDisplay(args: Record<string, unknown>): Record<string, unknown> {
  const show = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return shownArgument(value);
    if (!value || typeof value !== "object") return value;
    if (depth > 4) return "…";
    if (Array.isArray(value)) return value.slice(0, 50).map((v) => show(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && typeof v === "string" ? "…" : show(v, depth + 1);
    return out;
  };
  return show(args, 0) as Record<string, unknown>;
}

/** A string argument masked and cut; past the margin, the count is of the characters sent (nothing after the margin is masked). */
function shownArgument(value: string): string {
  if (value.length > ARGUMENT_MAX_CHARS + ARGUMENT_MASK_MARGIN) {
    return `${redactSecrets(value.slice(0, ARGUMENT_MAX_CHARS + ARGUMENT_MASK_MARGIN)).slice(0, ARGUMENT_MAX_CHARS)}… [${value.length} characters]`;
  }
  const masked = redactSecrets(value);
  return masked.length > ARGUMENT_MAX_CHARS ? `${masked.slice(0, ARGUMENT_MAX_CHARS)}… [${masked.length} characters]` : masked;
}

export function failure(message: string, event?: Record<string, unknown>): ToolResult {
  return { ok: false, output: message, ...(event ? { event } : {}) };
}

function errorText(e: unknown): string {
  if (e instanceof ToolError) return e.message;
  if (e instanceof Error) return `${e.name === "Error" ? "error" : e.name}: ${e.message}`;
  return String(e);
}

function invalidArgumentsMessage(tool: string, error: z.ZodError): string {
  const problems = error.issues.map((i) => `${i.path.length ? i.path.join(".") : "arguments"}: ${i.message}`);
  return `The ${tool} tool was called with invalid arguments: ${problems.join("; ")}. Rewrite the input so it satisfies the tool's schema.`;
}

/** A request a tool source puts through the session's approval gate outside any tool call (connecting to a server). */
export interface SourceApprovalRequest {
  callId: string;
  tool: string;
  risk: ToolRisk;
  summary: string;
  /** Only a person's answer counts: auto_approve does not approve it. */
  personOnly?: boolean;
  /** Equal for identical requests, so a client may answer repeats as it answered the first. */
  fingerprint?: string;
  /** An answer with `remember` is kept beyond the session. */
  rememberable?: boolean;
  /** Parts a client may approve one by one (the servers of one MCP connect request); the answer's `chosen`. */
  choices?: string[];
}

/** What a tool source may do while it prepares its offer at the start of a turn. */
export interface SourceContext {
  signal: AbortSignal;
  approve(request: SourceApprovalRequest): Promise<{ approved: boolean; reason: string; remember?: "workspace" | "user"; chosen?: string[] }>;
  /** A one-line status for the client while the source works (connecting, listing). */
  progress(line: string): void;
}

/** One group of tools offered together (an MCP server's), named for collision messages. */
export interface ToolOffer {
  /** Who offers them, as a person reads it: `MCP server "github" (/home/me/.scv/config.toml)`. */
  source: string;
  tools: Tool[];
}

/** Tools that come and go during a session (MCP servers): asked again at the start of every turn. */
export interface ToolSource {
  offers(ctx: SourceContext): Promise<{ offers: ToolOffer[]; notices: string[] }>;
}

/** Registration rejects duplicate names; sources' offers that collide are refused whole, naming both sides. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly sources: ToolSource[] = [];
  private offered = new Map<string, { tool: Tool; source: string }>();
  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`a tool named "${tool.name}" is already registered`);
    this.tools.set(tool.name, tool);
  }
  addSource(source: ToolSource): void {
    this.sources.push(source);
  }
  /** Asks every source for its current offer; returns notices for the client (offers refused, sources failing). */
  async refresh(ctx: SourceContext): Promise<string[]> {
    if (!this.sources.length) return [];
    const next = new Map<string, { tool: Tool; source: string }>();
    const notices: string[] = [];
    for (const source of this.sources) {
      const got = await source.offers(ctx);
      notices.push(...got.notices);
      for (const offer of got.offers) {
        const clash = this.collision(offer, next);
        if (clash) notices.push(clash);
        else for (const tool of offer.tools) next.set(tool.name, { tool, source: offer.source });
      }
    }
    this.offered = next;
    return notices;
  }
  get(name: string): Tool | undefined {
    return this.tools.get(name) ?? this.offered.get(name)?.tool;
  }
  list(): Tool[] {
    return [...this.tools.values(), ...[...this.offered.values()].map((o) => o.tool)];
  }
  /** The tools whose schemas go to the model now: every one but those deferred. */
  requested(): Tool[] {
    return this.list().filter((t) => !t.deferred);
  }

  /** Why `offer` cannot be taken beside the built-in tools and the offers already accepted, naming both sides. */
  private collision(offer: ToolOffer, accepted: Map<string, { tool: Tool; source: string }>): string | undefined {
    const seen = new Set<string>();
    for (const tool of offer.tools) {
      const other = this.tools.has(tool.name) ? "the built-in tool" : accepted.get(tool.name) ? `a tool of ${accepted.get(tool.name)!.source}` : seen.has(tool.name) ? "another of its own tools" : undefined;
      if (other) {
        return `${offer.source} is not offered: its tool name "${tool.name}" collides with ${other} of that name; rename the server or leave the tool out (disabled_tools)`;
      }
      seen.add(tool.name);
    }
    return undefined;
  }
}
