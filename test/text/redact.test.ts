import { describe, expect, test } from "bun:test";
import { redactProgress, redactSecrets, shortPath } from "../../src/text/redact";

describe("progress redaction", () => {
  test("paths keep their last two components", () => {
    expect(redactProgress("Write /home/u/proj/src/main.ts")).toBe("Write src/main.ts");
    expect(redactProgress("$ cat ~/work/a/b/c.txt | head")).toBe("$ cat b/c.txt | head");
    expect(redactProgress("edit src/agents/redact.ts")).toBe("edit agents/redact.ts");
    expect(redactProgress("$ ls /tmp")).toBe("$ ls /tmp");
    expect(shortPath("/a/b")).toBe("/a/b");
  });

  test("URLs lose their query, fragment and user info but keep their path", () => {
    expect(redactProgress("fetch https://example.com/docs/a/b?token=abc#frag")).toBe("fetch https://example.com/docs/a/b");
    expect(redactProgress("fetch https://user:pw@example.com/x")).toBe("fetch https://example.com/x");
  });

  test("credential-looking values become …", () => {
    expect(redactProgress('$ curl -H "Authorization: Bearer abcdef123456" x')).toBe('$ curl -H "Authorization: Bearer …" x');
    expect(redactProgress("$ OPENAI_API_KEY=sk-live-0123456789abcdef make")).toBe("$ OPENAI_API_KEY=… make");
    expect(redactProgress("$ deploy --api-token s3cr3tvalue --verbose")).toBe("$ deploy --api-token … --verbose");
    expect(redactProgress("$ mysql --password=hunter2 db")).toBe("$ mysql --password=… db");
    expect(redactProgress("$ echo ghp_0123456789abcdefghij0123")).toBe("$ echo …");
    expect(redactProgress("$ echo xai-0123456789abcdefXYZ")).toBe("$ echo …");
    expect(redactSecrets('{"client_secret": "abc", "name": "x"}')).toBe('{"client_secret": "…", "name": "x"}');
    expect(redactProgress("$ export DB_PASSWORD='two words'")).toBe("$ export DB_PASSWORD=…");
  });

  test("one line, no control characters, bounded", () => {
    expect(redactProgress("first line\nsecond line")).toBe("first line");
    expect(redactProgress("\n\nreal\tline\u0007")).toBe("real line");
    const long = redactProgress(`$ echo ${"x".repeat(500)}`);
    expect(long.length).toBe(200);
    expect(long.endsWith("…")).toBe(true);
  });

  test("ordinary words that mention keys are left alone", () => {
    expect(redactProgress("Read the monkey business")).toBe("Read the monkey business");
    expect(redactProgress("search: how to rotate api keys")).toBe("search: how to rotate api keys");
  });
});

describe("real messages", () => {
  test("a bare TOKEN=, PASSWORD=, SECRET=, KEY= at the start of a word is masked", () => {
    expect(redactSecrets("TOKEN=abc123 make deploy")).toBe("TOKEN=… make deploy");
    expect(redactProgress("$ PASSWORD=hunter2 psql")).toBe("$ PASSWORD=… psql");
    expect(redactSecrets("env SECRET='s3 cr3t' KEY=k-1 ./run")).toBe("env SECRET=… KEY=… ./run");
    expect(redactSecrets("export token=xyz")).toBe("export token=…");
  });

  test("Codex's 401 text keeps its words; real credentials after a scheme are still masked", () => {
    // codex exec 0.171.0 against a provider without a key.
    const codex401 = "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header, url: https://api.openai.com/v1/responses";
    expect(redactSecrets(codex401)).toBe(codex401);
    expect(redactSecrets("Authorization: Basic dXNlcjpwYXNz")).toBe("Authorization: Basic …");
    expect(redactSecrets("Authorization: Bearer abcdefghijklmnopqrstuvwxyz")).toBe("Authorization: Bearer …");
    expect(redactSecrets("Bearer abc.def-123")).toBe("Bearer …");
  });
});
