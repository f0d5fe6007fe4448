// Colour for the command line: only when the stream is a terminal, NO_COLOR is unset and TERM is not dumb
// (https://no-color.org). Every command asks here, so --help and errors follow the same rule as exec's output.

export interface Style {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

export function colourWanted(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): boolean {
  return !!stream.isTTY && env.NO_COLOR === undefined && env.TERM !== "dumb";
}

export function styleFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): Style {
  const enabled = colourWanted(stream, env);
  const sgr = (on: number, off: number) => (s: string) => (enabled && s ? `\x1b[${on}m${s}\x1b[${off}m` : s);
  return { enabled, bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
}
