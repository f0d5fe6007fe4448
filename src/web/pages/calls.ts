// A tool call in a transcript as the terminal shows it: `✓ $ npm test (exit 0, 0.6 s)`, `⊘ write a.txt
// (denied: …)`, a file change as a coloured diff with its real line numbers. A denied or failed call is marked
// so, and its diff is shown as not applied.
import type { StoredCall } from "../../sessions/load";
import { html, type Raw } from "../html";

export function callView(c: StoredCall, clean: (t: string) => string): Raw {
  const status = c.denied ? "denied" : c.ok ? "ran" : "failed";
  const mark = status === "denied" ? "⊘" : status === "failed" ? "✗" : "✓";
  const outcome = c.denied ? ` (${c.display ?? "denied"})` : c.display ? ` (${c.display})` : c.ok ? "" : " (failed)";
  const note = status === "ran" ? "" : html` <span class="badge ${status}">${status} · not applied</span>`;
  return html`<div class="call ${status}"><strong>${mark} ${clean(c.label)}${clean(outcome)}</strong>${note}${c.diff ? diffView(clean(c.diff), status !== "ran") : ""}</div>`;
}

/** A unified diff, each line coloured and numbered from its hunk header (old number for -, new for + and context). */
export function diffView(diff: string, notApplied: boolean): Raw {
  let oldLine = 0;
  let newLine = 0;
  const lines = diff.split("\n").map((l) => {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(l);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      return html`<span class="hunk">${l}</span>`;
    }
    if (l.startsWith("---") || l.startsWith("+++")) return html`<span class="hunk">${l}</span>`;
    if (l.startsWith("-")) return html`<span class="del"><i>${String(oldLine++).padStart(4)}</i>${l}</span>`;
    if (l.startsWith("+")) return html`<span class="add"><i>${String(newLine++).padStart(4)}</i>${l}</span>`;
    oldLine++;
    return html`<span><i>${String(newLine++).padStart(4)}</i>${l}</span>`;
  });
  return html`<pre class="diff${notApplied ? " not-applied" : ""}">${lines}</pre>`;
}
