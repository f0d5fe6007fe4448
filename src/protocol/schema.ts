// Client protocol v3: every message SCV's server accepts or sends, in one place. docs/protocol.md is generated
// from this module (scripts/protocol-doc.ts) and the server validates every request against it. The requests
// are in schema-requests.ts, the notifications in schema-notifications.ts and the shapes they share in
// schema-parts.ts; this entry re-exports them, and every reader imports from here.
import { lazySchema } from "../lazy-schema";
import { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION } from "./constants";

export { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION };
export { Origin } from "./schema-parts";
export * from "./schema-requests";
export * from "./schema-notifications";

export const JsonRpcRequest = lazySchema((z) => z.object({
  jsonrpc: z.literal("2.0"),
  // Any integer: one beyond 2^53 is echoed with its exact digits (rpc.ts), so it is not refused here.
  // multipleOf(1), not a refinement: JSON Schema states it, so the fast check (fast-check/check.ts) can apply it too.
  id: z.union([z.string(), z.number().multipleOf(1, "must be an integer or a string")]).optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
}));
