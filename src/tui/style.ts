// Terminal styles as a value passed to whatever draws, never a global: colour is on only when stdout is a
// terminal and NO_COLOR is unset, and a theme without colour returns text unchanged.
export interface Theme {
  color: boolean;
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

const sgr = (open: number, close: number) => (s: string) => (s ? `\x1b[${open}m${s}\x1b[${close}m` : s);

export function createTheme(color: boolean): Theme {
  const id = (s: string) => s;
  return {
    color,
    bold: color ? sgr(1, 22) : id,
    dim: color ? sgr(2, 22) : id,
    italic: color ? sgr(3, 23) : id,
    underline: color ? sgr(4, 24) : id,
    red: color ? sgr(31, 39) : id,
    green: color ? sgr(32, 39) : id,
    yellow: color ? sgr(33, 39) : id,
    cyan: color ? sgr(36, 39) : id,
    magenta: color ? sgr(35, 39) : id,
  };
}

/** Colour for a stream: a terminal, and NO_COLOR unset or empty (https://no-color.org). */
export function wantsColor(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return !!isTTY && !env.NO_COLOR;
}
