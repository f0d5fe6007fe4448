// Terminal colour, one rule for every command and the TUI: only when the stream is a terminal, NO_COLOR is unset
// and TERM is not dumb (https://no-color.org). A style is a value passed to whatever draws, never a global; with
// colour off every function returns its text unchanged.

export interface Style {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  italic(s: string): string;
  underline(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
}

export function colourWanted(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  return !!stream.isTTY && env.NO_COLOR === undefined && env.TERM !== "dumb";
}

/** A style with colour on or off. */
export function createStyle(enabled: boolean): Style {
  const sgr = (on: number, off: number) => (s: string) => (enabled && s ? `\x1b[${on}m${s}\x1b[${off}m` : s);
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    magenta: sgr(35, 39),
  };
}

/** The style for writing to `stream`. */
export function styleFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): Style {
  return createStyle(colourWanted(stream, env));
}
