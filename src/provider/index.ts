// The provider layer's public surface: the client, the neutral types, failure helpers and citations.
export { createModelClient, type ModelClientOptions, type RetryTiming } from "./client";
export { withSources, type Citation } from "./citations";
export { scrubSecrets } from "./errors";
export * from "./types";
