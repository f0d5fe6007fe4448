// The `clarify` tool: the model asks the person one question, optionally with up to four choices, and the answer
// is the tool's result. Where nobody can answer (a pipe, a nested run) the answer comes at once and says so, so a
// turn never hangs on a question; the wait for an answer is bounded (tools.clarify_timeout_seconds). Offered only
// in the owner's sessions with someone possibly at hand: never in a stranger's chat or a schedule's run.
import { lazySchema } from "../lazy-schema";
import type { SessionScope } from "../scope";
import { ToolError } from "../errors";
import { defineTool, type QuestionOutcome, type Tool } from "./tool";

export const MAX_CHOICES = 4;

export const ClarifyArgs = lazySchema((z) => z.strictObject({
  question: z.string().trim().min(1, "must not be empty: ask one clear question").max(1000, "must be at most 1000 characters: ask one short question"),
  choices: z
    .array(z.string().trim().min(1, "a choice must not be empty").max(200, "a choice must be at most 200 characters"))
    .max(MAX_CHOICES, `at most ${MAX_CHOICES} choices; the person may still answer in their own words`)
    .optional(),
}));

export function createClarifyTool(scope: SessionScope): Tool | undefined {
  if (!scope.owner || scope.unattended) return undefined;
  return defineTool({
    name: "clarify",
    kind: "think",
    description: "Ask the person one question when you cannot proceed well without their answer (optionally up to 4 choices). Not for confirmations.",
    parameters: ClarifyArgs,
    risk: "read_only",
    summary: (args) => `ask: ${args.question}${args.choices?.length ? ` (${args.choices.join(" / ")})` : ""}`,
    label: (args) => `ask: ${args.question}`,
    async execute(args, ctx) {
      const outcome: QuestionOutcome = ctx.ask ? await ctx.ask({ question: args.question, ...(args.choices?.length ? { choices: args.choices } : {}) }) : { by: "nobody" };
      return resultOf(outcome, ctx.config.tools.clarify_timeout_seconds);
    },
  });
}

/** A person's typed answer: a choice by its number, else the words as written; undefined for nothing typed. */
export function answerFromText(text: string, choices: readonly string[] | undefined): string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const picked = /^[1-9]$/.test(t) ? choices?.[Number(t) - 1] : undefined;
  return picked ?? t;
}

const GO_ON = "go on with your best judgement and say what you assumed";

function resultOf(outcome: QuestionOutcome, timeoutSeconds: number) {
  switch (outcome.by) {
    case "person":
      return { ok: true, output: `The person answered: ${outcome.answer}`, display: "answered", preview: outcome.answer };
    case "declined":
      return { ok: true, output: `The person chose not to answer; ${GO_ON}.`, display: "not answered" };
    case "timeout":
      return { ok: true, output: `No answer came within ${Math.round(timeoutSeconds / 60)} minutes; ${GO_ON}.`, display: "no answer (timed out)" };
    case "nobody":
      return { ok: true, output: `Nobody can answer questions here (no person is at this session's client); ${GO_ON}.`, display: "nobody can answer here" };
    case "cancelled":
      throw new ToolError("the question was withdrawn: the turn was cancelled");
  }
}
