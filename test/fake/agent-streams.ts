// Canned agent CLI output, taken from the real lines captured in /work/shared/reference/agent-cli-formats.md
// (Claude Code 2.1.197, Codex 0.171.0) and anchors-opencode-pi.md §2.6 (pi 0.73.1). Fields the reference
// trimmed with "…" are left out so each line is valid JSON; @SESSION@ is replaced by the fake agent script.

export const lines = (...l: string[]) => `${l.join("\n")}\n`;

export const CLAUDE_INIT =
  '{"type":"system","subtype":"init","cwd":"/scratch/runs/claude1","session_id":"@SESSION@","tools":["Task","Bash","Edit","Read","WebFetch","WebSearch","Write"],"mcp_servers":[],"model":"claude-opus-4-8[1m]","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.197","output_style":"default","uuid":"de4983ab-0000","fast_mode_state":"off"}';
export const CLAUDE_BASH =
  '{"type":"assistant","message":{"id":"msg_fake_1","type":"message","role":"assistant","model":"claude-opus-4-8","content":[{"type":"tool_use","id":"toolu_fake_1","name":"Bash","input":{"command":"echo hi-from-bash","description":"Echo a greeting"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":101,"output_tokens":1,"cache_creation_input_tokens":5,"cache_read_input_tokens":7},"context_management":null},"parent_tool_use_id":null,"session_id":"@SESSION@","uuid":"dc37ee99","request_id":"req_1"}';
export const CLAUDE_BASH_RESULT =
  '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_fake_1","type":"tool_result","content":"hi-from-bash","is_error":false}]},"parent_tool_use_id":null,"session_id":"@SESSION@","uuid":"07597f80","timestamp":"2026-12-02T10:05:41.381Z","tool_use_result":{"stdout":"hi-from-bash","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}';
const claudeTool = (json: string) =>
  `{"type":"assistant","message":{"id":"msg_fake_2","type":"message","role":"assistant","model":"claude-opus-4-8","content":[${json}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"@SESSION@","uuid":"u2"}`;
export const CLAUDE_WRITE = claudeTool(
  '{"type":"tool_use","id":"toolu_fake_7","name":"Write","input":{"file_path":"/scratch/runs/claude2/scv_note.txt","content":"hello\\n"}}',
);
export const CLAUDE_SEARCH = claudeTool('{"type":"tool_use","id":"toolu_fake_1","name":"WebSearch","input":{"query":"scv wire formats"}}');
export const CLAUDE_FETCH = claudeTool(
  '{"type":"tool_use","id":"toolu_fake_3","name":"WebFetch","input":{"url":"http://127.0.0.1:18080/page?token=abc","prompt":"Summarize the page"}}',
);
export const CLAUDE_TEXT = claudeTool('{"type":"text","text":"Checking the tests now.\\nSecond line stays out."}');
export const CLAUDE_RESULT =
  '{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"duration_ms":547,"duration_api_ms":221,"num_turns":5,"result":"All tools done.","stop_reason":"end_turn","session_id":"@SESSION@","total_cost_usd":0.00424875,"usage":{"input_tokens":515,"cache_creation_input_tokens":25,"cache_read_input_tokens":35,"output_tokens":60,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard"},"modelUsage":{"claude-opus-4-8[1m]":{"inputTokens":515,"outputTokens":60}},"permission_denials":[],"terminal_reason":"completed","fast_mode_state":"off","uuid":"4a8cf6a1"}';
export const CLAUDE_OK = lines(CLAUDE_INIT, CLAUDE_BASH, CLAUDE_BASH_RESULT, CLAUDE_WRITE, CLAUDE_SEARCH, CLAUDE_FETCH, CLAUDE_TEXT, CLAUDE_RESULT);

/** API errors arrive as subtype "success" with is_error true (and exit code 1). */
export const CLAUDE_401 = lines(
  CLAUDE_INIT,
  '{"type":"assistant","message":{"id":"664236a8","model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","content":[{"type":"text","text":"Failed to authenticate. API Error: 401 fake 401 error"}]},"parent_tool_use_id":null,"session_id":"@SESSION@","uuid":"x","error":"authentication_failed","request_id":"req_err"}',
  '{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"duration_ms":216,"duration_api_ms":0,"num_turns":1,"result":"Failed to authenticate. API Error: 401 fake 401 error","stop_reason":"stop_sequence","session_id":"@SESSION@","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"modelUsage":{},"permission_denials":[],"terminal_reason":"completed"}',
);
export const CLAUDE_400 = lines(
  CLAUDE_INIT,
  '{"type":"result","subtype":"success","is_error":true,"api_error_status":400,"num_turns":1,"result":"API Error: 400 fake 400 error","stop_reason":"stop_sequence","session_id":"@SESSION@","usage":{"input_tokens":0,"output_tokens":0}}',
);
export const CLAUDE_MAX_TURNS = lines(
  CLAUDE_INIT,
  '{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3,"stop_reason":null,"session_id":"@SESSION@","usage":{"input_tokens":10,"output_tokens":2},"errors":["Reached maximum number of turns (3)"]}',
);
export const CLAUDE_REFUSAL = lines(
  CLAUDE_INIT,
  '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"I can\'t help with that request.","stop_reason":"refusal","session_id":"@SESSION@","usage":{"input_tokens":20,"output_tokens":8}}',
);

export const CODEX_THREAD = '{"type":"thread.started","thread_id":"01a2363a-d6f0-74c1-843c-6aaaa9c7b08f"}';
export const CODEX_THREAD_ID = "01a2363a-d6f0-74c1-843c-6aaaa9c7b08f";
export const CODEX_OK = lines(
  CODEX_THREAD,
  '{"type":"turn.started"}',
  '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Planning** the fake step"}}',
  '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'echo hi-from-codex\'","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
  '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'echo hi-from-codex\'","aggregated_output":"hi-from-codex\\n","exit_code":0,"status":"completed"}}',
  '{"type":"item.started","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -lc \'npm test\'","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
  '{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -lc \'npm test\'","aggregated_output":"1 failing\\n","exit_code":1,"status":"failed"}}',
  '{"type":"item.started","item":{"id":"item_3","type":"file_change","changes":[{"path":"/scratch/runs/codex1/scv_codex.txt","kind":"add"}],"status":"in_progress"}}',
  '{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"/scratch/runs/codex1/scv_codex.txt","kind":"add"}],"status":"completed"}}',
  '{"type":"item.started","item":{"id":"item_1","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}',
  '{"type":"item.completed","item":{"id":"item_1","type":"web_search","id":"ws_1","query":"scv wire formats","action":{"type":"search","query":"scv wire formats"}}}',
  '{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `fake-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}',
  '{"type":"item.started","item":{"id":"item_8","type":"todo_list","items":[{"text":"Echo","completed":true},{"text":"Patch","completed":false}]}}',
  '{"type":"item.completed","item":{"id":"item_11","type":"agent_message","text":"All codex tools done."}}',
  '{"type":"item.completed","item":{"id":"item_8","type":"todo_list","items":[{"text":"Echo","completed":true},{"text":"Patch","completed":false}]}}',
  '{"type":"turn.completed","usage":{"input_tokens":606,"cached_input_tokens":150,"cache_write_input_tokens":0,"output_tokens":90,"reasoning_output_tokens":30}}',
);
/** A resumed turn: same thread, usage is the thread's running total (606 + 205 input). */
export const CODEX_RESUMED = lines(
  CODEX_THREAD,
  '{"type":"turn.started"}',
  '{"type":"item.completed","item":{"id":"item_0","type":"error","message":"This session was recorded with model `gpt-5.5` but is resuming with `fake-model`."}}',
  '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Resumed and done."}}',
  '{"type":"turn.completed","usage":{"input_tokens":811,"cached_input_tokens":150,"output_tokens":120,"reasoning_output_tokens":30}}',
);
/** No agent_message in the stream: the reply comes from the -o file. */
export const CODEX_NO_MESSAGE = lines(
  CODEX_THREAD,
  '{"type":"turn.started"}',
  '{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":5}}',
);
export const CODEX_401 = lines(
  CODEX_THREAD,
  '{"type":"turn.started"}',
  '{"type":"error","message":"unexpected status 401 Unauthorized: fake 401 error, url: http://127.0.0.1:18080/v1/responses"}',
  '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: fake 401 error, url: http://127.0.0.1:18080/v1/responses"}}',
);
export const CODEX_500 = lines(
  CODEX_THREAD,
  '{"type":"turn.started"}',
  '{"type":"turn.failed","error":{"message":"We’re currently experiencing high demand, which may cause temporary errors."}}',
);
export const CODEX_ENV_KEY = lines(
  CODEX_THREAD,
  '{"type":"turn.failed","error":{"message":"Missing environment variable: `FAKE_OPENAI_KEY`."}}',
);

export const PI_SESSION = '{"type":"session","version":3,"id":"@SESSION@","timestamp":"2026-12-02T10:05:23.705Z","cwd":"/scratch/piwork"}';
const PI_ASSISTANT_TOOL =
  '{"type":"message_end","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"echo hi"}}],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1796205923820,"responseId":"chatcmpl-fake"}}';
export const PI_OK = lines(
  PI_SESSION,
  '{"type":"agent_start"}',
  '{"type":"turn_start"}',
  '{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"run echo hi"}],"timestamp":1796205923730}}',
  '{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"run echo hi"}],"timestamp":1796205923730}}',
  PI_ASSISTANT_TOOL,
  '{"type":"tool_execution_start","toolCallId":"call_1","toolName":"bash","args":{"command":"echo hi"}}',
  '{"type":"tool_execution_update","toolCallId":"call_1","toolName":"bash","args":{"command":"echo hi"},"partialResult":{"content":[{"type":"text","text":"hi\\n"}],"details":{}}}',
  '{"type":"tool_execution_end","toolCallId":"call_1","toolName":"bash","result":{"content":[{"type":"text","text":"hi\\n"}]},"isError":false}',
  '{"type":"tool_execution_start","toolCallId":"call_2","toolName":"edit","args":{"path":"/home/u/proj/src/main.ts","oldText":"a","newText":"b"}}',
  '{"type":"tool_execution_end","toolCallId":"call_2","toolName":"edit","result":{"content":[{"type":"text","text":"no match"}]},"isError":true}',
  '{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Done","partial":{"role":"assistant","content":[{"type":"text","text":"Done"}]}},"message":{"role":"assistant","content":[{"type":"text","text":"Done"}]}}',
  '{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Done"}],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":130,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":132,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1796205923889,"responseId":"chatcmpl-fake"}}',
  '{"type":"turn_end","message":{"role":"assistant","content":[{"type":"text","text":"Done"}]},"toolResults":[]}',
  '{"type":"agent_end","messages":[]}',
);
/** pi exits 0 even when the model call failed. */
export const PI_401 = lines(
  PI_SESSION,
  '{"type":"agent_start"}',
  '{"type":"message_end","message":{"role":"assistant","content":[],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","timestamp":1796205933101,"errorMessage":"401 Invalid API key"}}',
  '{"type":"agent_end","messages":[]}',
);
/** Auto-retry: two agent cycles, the last assistant message and auto_retry_end decide. */
export const PI_RETRY_503 = lines(
  PI_SESSION,
  '{"type":"agent_start"}',
  '{"type":"message_end","message":{"role":"assistant","content":[],"usage":{"input":0,"output":0},"stopReason":"error","errorMessage":"503 overloaded"}}',
  '{"type":"agent_end","messages":[]}',
  '{"type":"auto_retry_start","attempt":1,"maxAttempts":1,"delayMs":100,"errorMessage":"503 overloaded"}',
  '{"type":"agent_start"}',
  '{"type":"message_end","message":{"role":"assistant","content":[],"usage":{"input":0,"output":0},"stopReason":"error","errorMessage":"503 overloaded"}}',
  '{"type":"agent_end","messages":[]}',
  '{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"503 overloaded"}',
);

// Grok Build 1.0.41 `-p … --output-format json`: one object, pretty-printed with two-space indentation over
// many lines exactly as the real binary printed it against a loopback endpoint (keys, order and layout verbatim).
const grokResult = (text: string, stopReason: string) =>
  `{
  "text": ${JSON.stringify(text)},
  "stopReason": "${stopReason}",
  "sessionId": "@SESSION@",
  "requestId": "99b28779-1665-44c3-a0d8-f3fc8d6377c9",
  "usage": {
    "input_tokens": 300,
    "cache_read_input_tokens": 10,
    "cache_creation_input_tokens": 0,
    "output_tokens": 20,
    "reasoning_tokens": 0,
    "total_tokens": 330
  },
  "num_turns": 1,
  "modelUsage": {
    "grok-4.6": {
      "inputTokens": 300,
      "outputTokens": 20,
      "cacheReadInputTokens": 10,
      "cacheCreationInputTokens": 0,
      "modelCalls": 1
    }
  }
}
`;
/** The same result as an older build printed it, on one line: still read. */
export const GROK_OK_ONE_LINE = JSON.stringify(JSON.parse(grokResult("Grok reply.", "end_turn").replace("@SESSION@", "S"))).replace('"S"', '"@SESSION@"') + "\n";
export const GROK_OK = grokResult("Grok reply.", "end_turn");
/** A run Grok stopped because a tool needed approval: plain text mode printed nothing and exited 0. */
export const GROK_CANCELLED = grokResult("", "cancelled");
export const GROK_REFUSAL = grokResult("I won't do that.", "refusal");

/** Claude Code 2.1.332 signed out: is_error with zero usage; `type` is no longer the first key. */
export const CLAUDE_SIGNED_OUT = lines(
  CLAUDE_INIT,
  '{"subtype":"success","type":"result","is_error":true,"api_error_status":null,"num_turns":1,"result":"Not logged in · Please run /login","stop_reason":"stop_sequence","session_id":"@SESSION@","total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},"modelUsage":{},"permission_denials":[]}',
);
/** The final answer arrives as an assistant text message right before the result carrying the same text. */
export const CLAUDE_FINAL_TEXT = lines(
  CLAUDE_INIT,
  claudeTool('{"type":"text","text":"Let me look.\\nmore"}'),
  CLAUDE_BASH,
  CLAUDE_BASH_RESULT,
  claudeTool('{"type":"text","text":"All tools done."}'),
  CLAUDE_RESULT,
);
/** `claude -p --permission-mode bypassPermissions` run as root (stderr, exit 1). */
export const CLAUDE_ROOT_STDERR = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";
/** Codex 0.171.0's harmless stderr notices. */
export const CODEX_NOISE =
  'WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir "/tmp" (codex_home: AbsolutePathBuf("/tmp/x/agents/codex"))\nReading additional input from stdin...';
