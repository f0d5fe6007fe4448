// One page fetched as text: GET through the guarded connector, binary types refused from the headers
// (before the body is read), the body capped, decoded by its charset, and HTML converted to readable text.
import { guardedFetch, readCapped, type ConnectorOptions } from "./fetch";
import { htmlToText } from "./html-text";
import { NetError } from "./policy";

export interface Page {
  /** The final URL after redirects. */
  url: URL;
  status: number;
  statusText: string;
  /** The declared Content-Type header ("" when absent). */
  contentType: string;
  kind: "html" | "text";
  title: string;
  text: string;
  /** Link URLs for the `[n]` markers in text (HTML only). */
  links: string[];
  /** True when the body was longer than maxBytes and only its start was read. */
  truncated: boolean;
  bytes: number;
  redirects: URL[];
}

export interface PageRequest {
  signal?: AbortSignal;
  onRedirect?: (to: URL, from: URL) => void;
}

const TEXT_APPLICATION = new Set([
  "json", "xml", "javascript", "ecmascript", "x-javascript", "yaml", "x-yaml", "toml", "x-toml", "x-sh", "sql",
  "graphql", "x-ndjson", "ndjson", "csv", "x-www-form-urlencoded", "markdown", "x-httpd-php", "x-tex", "rtf",
]);
const BINARY_TOP = new Set(["image", "audio", "video", "font", "model"]);

/** Classifies a declared media type: html, text, binary, or unknown (absent). */
export function contentKind(contentType: string): "html" | "text" | "binary" | "unknown" {
  const mime = contentType.split(";")[0]!.trim().toLowerCase();
  if (!mime) return "unknown";
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  const [top, sub = ""] = mime.split("/") as [string, string?];
  if (BINARY_TOP.has(top)) return "binary";
  if (top === "text") return "text";
  if (top === "application" && (TEXT_APPLICATION.has(sub) || sub.endsWith("+json") || sub.endsWith("+xml"))) return "text";
  return "binary";
}

export async function fetchPage(target: string | URL, opts: ConnectorOptions & { maxBytes: number }, req: PageRequest = {}): Promise<Page> {
  const { url, response, redirects } = await guardedFetch(target, opts, {
    headers: { accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5" },
    signal: req.signal,
    onRedirect: req.onRedirect,
  });
  const contentType = response.headers.get("content-type") ?? "";
  const declared = contentKind(contentType);
  if (declared === "binary") {
    await response.body?.cancel().catch(() => {}); // a body we will not read: a failed cancel only means the connection is gone already
    throw new NetError(
      `${url.href} is ${contentType.split(";")[0]!.trim()} (HTTP ${response.status}), not text; web_fetch returns HTML, JSON and other text only`,
    );
  }
  const { bytes, truncated } = await readCapped(response, opts.maxBytes, req.signal, url);
  if (declared === "unknown" && looksBinary(bytes)) {
    throw new NetError(`${url.href} has no Content-Type and its body looks binary; web_fetch returns text only`);
  }
  const isHtml = declared === "html" || (declared === "unknown" && /^\s*<(!doctype html|html[\s>])/i.test(latin1Head(bytes, 256)));
  const decoded = decode(bytes, contentType, isHtml);
  const base = {
    url,
    status: response.status,
    statusText: response.statusText,
    contentType,
    truncated,
    bytes: bytes.length,
    redirects,
  };
  if (!isHtml) return { ...base, kind: "text", title: "", text: decoded, links: [] };
  const html = htmlToText(decoded, url);
  return { ...base, kind: "html", title: html.title, text: html.text, links: html.links };
}

function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 1024);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

function latin1Head(bytes: Uint8Array, n: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(n, bytes.length)).toString("latin1");
}

/** Decodes by BOM, then the header charset, then (for HTML) a <meta> charset; UTF-8 otherwise. */
function decode(bytes: Uint8Array, contentType: string, isHtml: boolean): string {
  let label: string | undefined;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) label = "utf-8";
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) label = "utf-16le";
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = "utf-16be";
  label ??= /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
  if (!label && isHtml) label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(latin1Head(bytes, 2048))?.[1];
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder((label ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  // stream: true holds back a multi-byte character cut off by the byte cap instead of emitting U+FFFD.
  return decoder.decode(bytes, { stream: true });
}
