// Health: what `scv doctor` reports, run again each time the page is loaded ("Check again").
import type { Hono } from "hono";
import { userHome } from "../../user-home";
import type { WebContext, WebEnv } from "../context";
import { html, page } from "../html";

export function registerHealth(app: Hono<WebEnv>, ctx: WebContext): void {
  app.get("/health", async (c) => {
    const { runDoctor } = await import("../../doctor/index");
    const report = await runDoctor({ cwd: ctx.config.channels.workspace ?? userHome(ctx.env), env: ctx.env, timeoutMs: 5000 });
    const rows = report.lines.map((l) => html`<tr class="${l.verdict}"><td class="${l.verdict}">${l.verdict}</td><td>${l.area}</td><td>${l.text}${l.fix ? html`<div class="mute">fix: ${l.fix}</div>` : ""}</td></tr>`);
    const summary = report.problems || report.warnings ? `${report.problems} problem(s), ${report.warnings} warning(s)` : "everything looks fine";
    const body = html`<h1>Health</h1><p>${summary} · <a href="/health">Check again</a></p><table>${rows}</table>`;
    return c.html(page({ name: "health", title: "Health", body }));
  });
}
