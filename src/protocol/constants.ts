// Protocol constants with no dependencies, so the stdio fast path can answer `initialize` before zod loads.
export const PROTOCOL_VERSION = 3;
/** Longest accepted input line; longer lines are answered with an error and skipped. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Deepest nesting of arrays/objects accepted in a line; deeper lines are refused (-32600) before parsing. */
export const MAX_NESTING_DEPTH = 256;
/** Most values (array elements, object members, containers) accepted in a line, so parsing one stays cheap. */
export const MAX_JSON_VALUES = 100_000;

export const ERROR_CODES = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal_error: -32603,
  unsupported_version: -32001,
  not_initialized: -32002,
  unknown_session: -32003,
  configuration: -32004,
  unknown_approval: -32005,
  session_in_use: -32006,
} as const;
