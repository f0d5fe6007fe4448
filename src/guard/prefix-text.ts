// A rule's prefix words as a person reads them, quoted where the shell would need it. Its own module, free of
// imports, so clients (the TUI, exec) can show rules without loading the guard.
export function prefixText(prefix: readonly string[]): string {
  return prefix.map((w) => (/^[A-Za-z0-9._+:@%\/=,-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");
}
