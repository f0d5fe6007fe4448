// Feishu failures as clear messages: which can be retried, which name a scope or the secret.
import { expect, test } from "bun:test";
import { codeError, connectionError, feishuError, partUuid } from "../../../src/channels/feishu/api";

const APP = "cli_a1b2c3d4e5f60718";

test("a wrong secret says which app and how to fix it; it is not retried", () => {
  const e = feishuError(new Error("failed to get tenant_access_token, code: 10014, msg: app secret invalid"), APP);
  expect(e.kind).toBe("auth");
  expect(e.retryable).toBe(false);
  expect(e.message).toContain(`rejected the app credentials for ${APP} (code 10014`);
  expect(e.message).toContain("app_secret_env");
});

test("a missing scope names the scope to add in the console", () => {
  const e = feishuError({ response: { status: 400, data: { code: 99991672, msg: "Access denied. One of the following scopes is required: [im:message:send_as_bot, im:message].x" } } }, APP);
  expect(e.kind).toBe("scope");
  expect(e.message).toContain("lacks the permission scope im:message:send_as_bot, im:message; add it in the developer console");
});

test("5xx and network failures are retried; a rejected token is a token error; a bad target is refused", () => {
  expect(feishuError({ response: { status: 503, data: "<html>" } }, APP).retryable).toBe(true);
  expect(feishuError(new Error("connect ECONNREFUSED"), APP).retryable).toBe(true);
  expect(codeError(99991663, "Invalid access token", APP).kind).toBe("token");
  const refused = codeError(230002, "Bot is not in the chat.", APP, 400);
  expect([refused.kind, refused.retryable]).toEqual(["refused", false]);
});

test("long-connection failures: auth, a tenant without long connections, too many connections", () => {
  expect(connectionError(new Error("pullConnectConfig failed: code=514, msg=auth failed"), APP).kind).toBe("auth");
  expect(connectionError(new Error("pullConnectConfig failed: code=403, msg=forbidden"), APP).message).toContain("persistent connection");
  expect(connectionError(new Error("pullConnectConfig failed: code=1000040350, msg=x"), APP).message).toContain("allows 50");
});

test("a part's uuid is stable for one delivery record and at most 50 characters", () => {
  expect(partUuid("r-000001-000001", 0)).toBe(partUuid("r-000001-000001", 0));
  expect(partUuid("r-000001-000001", 1)).not.toBe(partUuid("r-000001-000001", 0));
  expect(partUuid("m-".padEnd(200, "z"), 12).length).toBeLessThanOrEqual(50);
});
