// web_fetch: one public http(s) URL, GET, returned as text in parts that fit the tool output limit.
// Policy (schemes, credentials, addresses, redirects, limits) lives in src/net; this file decides risk and
// lays out the result: final URL, status, content type and the character range come first.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { autoApproveHosts, bareHost, fetchPage, linksFor, NetError, netOptions, parseTargetUrl, type Page } from "../net";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { clipChars, cutUtf8 } from "../text/cut";
import { defineTool, type Tool, type ToolResult } from "./tool";

export const Params = lazySchema((z) => z.strictObject({
  url: z.string().min(1, "give the http:// or https:// URL to fetch").describe("http(s) URL"),
  offset: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .optional()
    .describe("Character offset"),
}));
type Args = z.infer<typeof Params>;

/** Room kept for the closing "next part" note. */
const FOOTER_RESERVE = 160;

export function createWebFetchTool(scope: SessionScope): Tool {
  const approved = autoApproveHosts(scope.config);
  const isAutoApproved = (url: URL) => url.protocol === "https:" && approved.has(bareHost(url));

  return defineTool({
    name: "web_fetch",
    kind: "fetch",
    description:
      "GET a public http(s) URL as text (HTML as readable text, links numbered [n] under Links:); binary types and " +
      "private addresses are refused. A longer page ends with the offset of its next part.",
    parameters: Params,
    risk: (args) => (isAutoApproved(checkedUrl(args.url)) ? "read_only" : "network"),
    summary: (args) => `GET ${checkedUrl(args.url).href}`,
    label: (args) => `fetch ${checkedUrl(args.url).href}`,
    async execute(args: Args, ctx): Promise<ToolResult> {
      const url = checkedUrl(args.url);
      const strict = isAutoApproved(url);
      ctx.progress(`fetching ${url.host}`);
      let page: Page;
      try {
        page = await fetchPage(url, netOptions(ctx), {
          signal: ctx.signal,
          // An auto-approved fetch ran without approval, so it may only go on to other auto-approved hosts.
          onRedirect: strict
            ? (to, from) => {
                if (!isAutoApproved(to)) {
                  throw new NetError(
                    `${from.href} redirected to ${to.href}, which is not an https:// host in web.auto_approve_domains, ` +
                      "so it was not followed; call web_fetch with that URL to fetch it (it needs approval)",
                  );
                }
              }
            : undefined,
        });
      } catch (e) {
        if (e instanceof NetError) throw new ToolError(e.message);
        throw e;
      }
      const output = renderPage(page, args.offset ?? 0, ctx.outputLimitBytes);
      return { ok: page.status < 400, output, display: `${page.status}, ${page.bytes} bytes` };
    },
  });
}

function checkedUrl(raw: string): URL {
  try {
    return parseTargetUrl(raw.trim());
  } catch (e) {
    throw new ToolError((e as Error).message);
  }
}

/** Lays out the part of the page starting at `offset` so the whole result fits in `limit` bytes. */
export function renderPage(page: Page, offset: number, limit: number): string {
  const total = page.text.length;
  if (offset > 0 && offset >= total) {
    throw new ToolError(`offset ${offset} is past the end of the page text (${total} characters); use an offset below ${total}`);
  }
  // The server controls the URL (via redirects), reason phrase, content type and title: each is clipped so
  // the header can never crowd out the text (a part with no text would name its own offset as the next one).
  const field = Math.min(300, Math.floor(limit / 16));
  const head = (end: number) => {
    const lines = [
      `URL: ${clipChars(page.url.href, Math.max(200, Math.floor(limit / 4)))}`,
      `Status: ${page.status}${page.statusText ? ` ${clipChars(page.statusText, field)}` : ""}`,
      `Content-Type: ${page.contentType ? clipChars(page.contentType, field) : "(none)"}`,
      `Characters: ${offset}-${end} of ${total}`,
    ];
    if (page.title) lines.push(`Title: ${clipChars(page.title, field)}`);
    if (page.redirects.length) lines.push(`Redirected ${page.redirects.length} time(s); final URL above.`);
    if (page.truncated) lines.push(`Note: only the first ${page.bytes} bytes were downloaded (web.fetch_max_bytes).`);
    return lines.join("\n") + "\n\n";
  };
  const budget = Math.max(0, limit - Buffer.byteLength(head(total)) - FOOTER_RESERVE);
  const rest = page.text.slice(offset, offset + budget + 1);
  const whole = fit(rest, budget);
  let part = whole;
  let links = linksFor(part, page.links);
  // The links block takes room from the text; shrinking the text can only drop links, so this settles fast.
  for (let i = 0; i < 4 && Buffer.byteLength(part) + Buffer.byteLength(links) + 2 > budget; i++) {
    part = fit(part, Math.max(0, budget - Buffer.byteLength(links) - 2));
    links = linksFor(part, page.links);
  }
  // Links longer than the whole budget would leave no text at all: show the text without its link list.
  if (!part) part = whole;
  if (Buffer.byteLength(part) + Buffer.byteLength(links) + 2 > budget) links = "";
  const end = offset + part.length;
  // A part cut at a line break would end in blank lines; they are not shown, but the range covers them.
  let out = head(end) + (end < total ? part.trimEnd() : part || (total === 0 ? "(empty body)" : ""));
  if (links) out += `\n\n${links}`;
  if (end < total) out += `\n\n[Characters ${offset}-${end} of ${total} shown. For the next part call web_fetch with "offset": ${end}]`;
  return out;
}

/** `text` if it fits in `bytes`, else its longest prefix that does, ended at a line break or space near the cut. */
function fit(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  const part = cutUtf8(text, bytes);
  let end = part.length;
  const nl = part.lastIndexOf("\n");
  const sp = part.lastIndexOf(" ");
  if (nl > end * 0.8) end = nl + 1;
  else if (sp > end * 0.95) end = sp + 1;
  const last = part.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return part.slice(0, end);
}
