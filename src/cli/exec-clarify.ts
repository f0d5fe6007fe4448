// `scv exec` on a terminal puts the model's question (clarify.requested) to the person on stderr and reads one
// line: a choice's number, their own words, or Enter alone to leave it unanswered. The line is read in the
// terminal's normal mode, so it echoes and edits as any shell prompt does; Ctrl-C stays the interrupt.
import { answerFromText } from "../tools/clarify";
import type { PromptIo } from "./approval-prompt";

export interface QuestionRequest {
  question: string;
  choices?: string[];
}

/** The question as a person reads it on stderr, with its numbered choices. */
export function questionCard(q: QuestionRequest): string {
  const lines = [`? ${q.question}`];
  (q.choices ?? []).forEach((c, i) => lines.push(`  ${i + 1}) ${c}`));
  const how = q.choices?.length ? "a number, your own words, or Enter to skip" : "your answer, or Enter to skip";
  return `${lines.join("\n")}\nanswer (${how}): `;
}


/** Asks and resolves with the answer; undefined when skipped, at end of input, or when `signal` aborts. */
export function askQuestion(q: QuestionRequest, io: PromptIo, signal: AbortSignal): Promise<string | undefined> {
  const { input, output } = io;
  output.write(`\n${questionCard(q)}`);
  return new Promise((resolve) => {
    let line = "";
    const finish = (answer: string | undefined) => {
      input.off("data", onData);
      input.off("end", onEnd);
      signal.removeEventListener("abort", onAbort);
      input.pause();
      resolve(answer);
    };
    const onData = (chunk: Buffer | string) => {
      line += String(chunk);
      const end = line.indexOf("\n");
      if (end >= 0) finish(answerFromText(line.slice(0, end), q.choices));
    };
    const onEnd = () => finish(undefined);
    const onAbort = () => {
      output.write("\n");
      finish(undefined);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    input.on("data", onData);
    input.on("end", onEnd);
    input.resume();
  });
}
