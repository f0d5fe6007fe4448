// Schedules: each with its trigger and next fire in words, and pause, resume, run now and remove: the same store
// changes `scv schedules` makes (src/schedules/manage), then the daemon's runner reads the schedule again.
import type { Hono } from "hono";
import type { WebContext, WebEnv } from "../context";
import { html, page } from "../html";

export function registerSchedules(app: Hono<WebEnv>, ctx: WebContext): void {
  // Loaded with the first visit: an idle daemon does not carry them for the page.
  const modules = async () => {
    const [create, manage, runner, { ScheduleStore }] = await Promise.all([import("../../schedules/create"), import("../../schedules/manage"), import("../../schedules/runner"), import("../../schedules/store")]);
    return { ...create, ...manage, ...runner, store: () => new ScheduleStore(ctx.scvHome) };
  };

  app.get("/schedules", async (c) => {
    const { describeTrigger, ownerTimeZone, scheduleRows, shortPrompt, store } = await modules();
    const { rows, invalid } = scheduleRows(store(), ctx.config);
    const tz = ownerTimeZone(ctx.config);
    const list = rows.length
      ? html`<table><tr><th>Schedule</th><th>When</th><th>Prompt</th><th>Status</th><th></th></tr>${rows.map(({ schedule: s, status, last }) => {
          const id = encodeURIComponent(s.id);
          return html`<tr data-schedule="${s.id}"><td>${s.id}</td><td>${describeTrigger(s.trigger, tz)}</td><td>${shortPrompt(s)}</td><td>${status}${last ? html`<div class="mute">last: ${last}</div>` : ""}</td>
<td class="actions">${s.paused ? html`<button data-post="/api/schedules/${id}/resume">Resume</button>` : html`<button data-post="/api/schedules/${id}/pause">Pause</button>`}
<button data-post="/api/schedules/${id}/run">Run now</button><button class="danger" data-post="/api/schedules/${id}/remove" data-confirm="Remove ${s.id}?">Remove</button></td></tr>`;
        })}</table>`
      : html`<p class="mute">No schedules. Ask SCV in a chat (“every weekday at 9 tell me …”) or use <code>scv schedules add</code>.</p>`;
    const broken = invalid.length ? html`<h2>Unreadable</h2><ul>${invalid.map((i) => html`<li>${i.file}: ${i.error}</li>`)}</ul>` : "";
    return c.html(page({ name: "schedules", title: "Schedules", body: html`<h1>Schedules</h1>${list}${broken}` }));
  });

  app.post("/api/schedules/:id/:action", async (c) => {
    const { id, action } = c.req.param();
    const { removeSchedule, setPaused, store } = await modules();
    try {
      if (action === "pause" || action === "resume") setPaused(store(), id, action === "pause");
      else if (action === "remove") removeSchedule(store(), id);
      else if (action === "run") {
        if (!ctx.schedules) return c.json({ error: "this daemon runs no schedules" }, 503);
        const r = ctx.schedules.runNow(id);
        return r.ok ? c.json({ ok: true, message: `fired ${id} (${r.fire})` }) : c.json({ error: r.error }, 409);
      } else return c.json({ error: `no action ${action}: use pause, resume, run or remove` }, 404);
    } catch (e) {
      return c.json({ error: (e as Error).message }, (e as Error).name === "ScheduleNotFound" ? 404 : 400);
    }
    ctx.schedules?.reload(id);
    return c.json({ ok: true, message: `${action === "remove" ? "removed" : `${action}d`} ${id}` });
  });
}
