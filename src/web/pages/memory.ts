// Memory: USER.md and the chat workspace's project notes as the owner's chat sessions use them, each editable
// with the memory tool's rules: the file's cap, and no text that looks like a key, token or password.
import type { Hono } from "hono";
import { configuredSecrets } from "../../config/configured-secrets";
import type { MemoryPlace } from "../../memory/index";
import { storedWorkspace } from "../../sessions/workspace";
import { userHome } from "../../user-home";
import type { WebContext, WebEnv } from "../context";
import { html, page } from "../html";
import { jsonBody } from "../request";

const SCOPES = ["user", "project"] as const;

export function registerMemory(app: Hono<WebEnv>, ctx: WebContext): void {
  // Loaded with the first visit: an idle daemon does not carry it for the page.
  const memory = () => import("../../memory/index");
  const place = async (): Promise<{ place?: MemoryPlace; workspace: string }> => {
    const { memoryPlaceOf } = await memory();
    const workspace = storedWorkspace(ctx.config.channels.workspace ?? userHome(ctx.env));
    return { place: memoryPlaceOf({ owner: true, scvHome: ctx.scvHome, workspace, config: ctx.config }), workspace };
  };

  app.get("/memory", async (c) => {
    const { fileTitle, readMemory, readMemoryWhole, usageLine } = await memory();
    const { place: p, workspace } = await place();
    if (!p) return c.html(page({ name: "memory", title: "Memory", body: html`<h1>Memory</h1><p class="mute">Memory is turned off (memory.enabled = false).</p>` }));
    const sections = SCOPES.map((scope) => {
      const state = readMemory(p, scope);
      return html`<h2>${fileTitle(scope)}${scope === "project" ? ` (${workspace})` : ""}</h2><p class="mute">${usageLine(state)}</p>${state.notice ? html`<p class="warning">${state.notice}</p>` : ""}
<form data-post="/api/memory" data-scope="${scope}"><input type="hidden" name="scope" value="${scope}"><textarea name="text" rows="12" aria-label="${fileTitle(scope)}">${readMemoryWhole(p, scope)}</textarea><button class="primary">Save</button><p class="note"></p></form>`;
    });
    return c.html(page({ name: "memory", title: "Memory", body: html`<h1>Memory</h1><p class="mute">What SCV remembers about you, sent with every request of your sessions. Keys, tokens and passwords are refused.</p>${sections}` }));
  });

  app.post("/api/memory", async (c) => {
    const body = jsonBody(c.get("body"));
    if (typeof body === "string") return c.json({ error: body }, 400);
    const scope = body.scope;
    if (scope !== "user" && scope !== "project") return c.json({ error: 'scope must be "user" or "project"' }, 400);
    if (typeof body.text !== "string") return c.json({ error: "text must be a string" }, 400);
    const { fileTitle, refuseSecrets, updateMemory } = await memory();
    const { place: p } = await place();
    if (!p) return c.json({ error: "memory is turned off (memory.enabled = false)" }, 409);
    const text = body.text.replace(/\r\n/g, "\n");
    try {
      refuseSecrets(text, configuredSecrets(ctx.config, ctx.env));
      const { after } = updateMemory(p, scope, () => text);
      return c.json({ ok: true, message: `saved ${fileTitle(scope)} (${Buffer.byteLength(after)} bytes)` });
    } catch (e) {
      const name = (e as Error).name;
      if (name === "MemoryEditError" || name === "MemoryFullError") return c.json({ error: (e as Error).message }, 400);
      throw e;
    }
  });
}
