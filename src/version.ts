// Stamped by scripts/build.ts through `define`; source runs report the package version with -dev.
declare const SCV_VERSION: string | undefined;
export const VERSION: string = typeof SCV_VERSION === "string" ? SCV_VERSION : "0.1.0-dev";
