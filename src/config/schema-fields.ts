// Field shapes the config's sections share, each with the message that says what was wrong.
import { zod } from "../lazy-schema";

/** The longest timeout a timer can hold (2^31-1 ms, about 24.8 days); a longer one would fire at once. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export const positiveInt = (max?: number) => {
  let s = zod().number().int("must be a whole number").positive("must be greater than 0");
  if (max !== undefined) s = s.max(max, `must be at most ${max}`);
  return s;
};

/** A non-negative number (a price or a limit); the message names what was wrong. */
export const amount = () => zod().number({ error: "must be a number" }).nonnegative("must not be negative").finite("must be a finite number");

export const envName = () => zod().string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");

export const absolutePath = () => zod().string().refine((p) => p.startsWith("/"), "must be an absolute path (starting with /; ~ and $VARIABLES are not expanded)");
