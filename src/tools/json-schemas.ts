// A bundle-time macro (tools/index.ts imports it `with { type: "macro" }`): the JSON Schemas of the tools in
// parameters.ts, made by the same jsonSchemaOf a session would run and inlined into the binary as plain data.
// Converting them at a session's start was about 5 ms of a nested SCV child's way to its first model request.
import { z } from "zod";
import { useZod } from "../lazy-schema";
import { PREBUILT_PARAMETERS } from "./parameters";
import { jsonSchemaOf } from "./tool";

export function prebuiltJsonSchemas(): Record<string, Record<string, unknown>> {
  useZod(z);
  return Object.fromEntries(Object.entries(PREBUILT_PARAMETERS).map(([name, parameters]) => [name, jsonSchemaOf(parameters)]));
}
