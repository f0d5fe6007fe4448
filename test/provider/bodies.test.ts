// Request bodies for the new history kinds, and the detection of a 400 that names a field the endpoint rejects.
import { describe, expect, test } from "bun:test";
import { chatBody } from "../../src/provider/chat";
import { rejectedFields } from "../../src/provider/optional-fields";
import { responsesBody } from "../../src/provider/responses";
import type { HistoryItem } from "../../src/provider/types";
import { ChatRequest, ResponsesRequest } from "../../src/provider/wire";
import { request } from "./helpers";

const history: HistoryItem[] = [
  { role: "summary", content: "The user wants the build fixed; job-3 runs the tests.", turns: 4 },
  { role: "user", content: "status?" },
  { role: "reasoning", id: "rs_1", encryptedContent: "gAAAA-secret-1", summary: ["Checking the job."] },
  { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "agent_status", arguments: "{}" }] },
  { role: "tool", callId: "call_1", name: "agent_status", output: "job-3: running" },
  { role: "assistant", content: "job-3 is still running." },
];

describe("responses", () => {
  test("reasoning items replay in place; a summary is a user message; include and reasoning are sent unless dropped", () => {
    const body = responsesBody(request({ reasoning: { effort: "low", summary: "concise" } }, history), "gpt-test");
    expect(ResponsesRequest.safeParse(body).success).toBe(true);
    expect(body.input.map((i) => i.type)).toEqual(["message", "message", "reasoning", "function_call", "function_call_output", "message"]);
    expect(JSON.stringify(body.input[0])).toContain("job-3 runs the tests");
    expect(body.input[2]).toEqual({ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Checking the job." }], encrypted_content: "gAAAA-secret-1" });
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.reasoning).toEqual({ effort: "low", summary: "concise" });
    const dropped = responsesBody(request({ reasoning: { effort: "low", summary: "none" } }, history), "gpt-test", new Set(["include", "reasoning"]));
    expect(dropped.include).toBeUndefined();
    expect(dropped.reasoning).toBeUndefined();
    expect(responsesBody(request({ reasoning: { summary: "none" } }, history), "m").reasoning).toBeUndefined();
  });
});

describe("chat", () => {
  test("reasoning items are left out; a summary is a user message; reasoning_effort is sent unless dropped", () => {
    const body = chatBody(request({ reasoning: { effort: "high" } }, history), "gpt-test");
    expect(ChatRequest.safeParse(body).success).toBe(true);
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user", "user", "assistant", "tool", "assistant"]);
    expect(JSON.stringify(body)).not.toContain("gAAAA-secret-1");
    expect(body.reasoning_effort).toBe("high");
    expect(chatBody(request({ reasoning: { effort: "high" } }, history), "m", new Set(["reasoning_effort"])).reasoning_effort).toBeUndefined();
  });
});

describe("rejectedFields", () => {
  const candidates = ["include", "reasoning"];
  test("error.param names the field", () => {
    const body = JSON.stringify({ error: { message: "Unrecognized request argument supplied: include", type: "invalid_request_error", param: "include", code: null } });
    expect(rejectedFields(400, body, candidates)).toEqual(["include"]);
    const nested = JSON.stringify({ error: { message: "Unsupported value", param: "reasoning.summary" } });
    expect(rejectedFields(400, nested, candidates)).toEqual(["reasoning"]);
  });
  test("the message names the field (vLLM / plain text)", () => {
    expect(rejectedFields(400, JSON.stringify({ error: { message: "Extra inputs are not permitted: reasoning" } }), candidates)).toEqual(["reasoning"]);
    expect(rejectedFields(422, "unknown field `include`", candidates)).toEqual(["include"]);
  });
  test("not a rejection: other statuses, other fields, a field merely mentioned", () => {
    expect(rejectedFields(500, JSON.stringify({ error: { param: "include" } }), candidates)).toEqual([]);
    expect(rejectedFields(400, JSON.stringify({ error: { message: "Invalid value for 'tool_choice'", param: "tool_choice" } }), candidates)).toEqual([]);
    expect(rejectedFields(400, JSON.stringify({ error: { message: "Unknown include value reasoning.encrypted_content" } }), ["reasoning"])).toEqual([]);
    expect(rejectedFields(400, JSON.stringify({ error: { message: "context too long; please include fewer files" } }), candidates)).toEqual([]);
  });
});
