// An ACP prompt as one SCV turn: text as written, resource links as references the model can `read`, resources
// the editor inlined (a selection, an open file) as blocks after it, each naming its URI, and images as files
// the turn attaches (SCV's sessions keep image paths, not bytes).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createPrivateFile, ensurePrivateDir } from "../fs/private-file";
import type { PromptBlock } from "../protocol/acp";
import { sniffImage } from "../provider/images";
import { ACP_ERRORS, AcpError } from "./rpc";

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

/** The turn's text and the images to attach, saved (once per content) under `imageDir`. */
export function promptTurn(blocks: PromptBlock[], imageDir: string): { text: string; images: string[] } {
  const images: string[] = [];
  for (const b of blocks) if (b.type === "image") images.push(saveImage(b.data, imageDir));
  const text = promptText(blocks.filter((b) => b.type !== "image"), images.length > 0);
  return { text, images };
}

/** Writes a prompt image (base64) as a private file named by its content; a type SCV does not send is refused. */
function saveImage(data: string, dir: string): string {
  const bytes = Buffer.from(data, "base64");
  const mime = sniffImage(bytes.subarray(0, 16));
  if (!mime) throw new AcpError(ACP_ERRORS.invalid_params, "an image in the prompt is not a PNG, JPEG, GIF or WebP image; send one of those");
  ensurePrivateDir(dir);
  const file = join(dir, `${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}.${EXTENSIONS[mime]}`);
  if (!existsSync(file)) createPrivateFile(file, bytes);
  return file;
}

function promptText(blocks: PromptBlock[], hasImages: boolean): string {
  const parts: string[] = [];
  const attached: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case "text":
        parts.push(b.text);
        break;
      case "resource_link":
        parts.push(`[${b.title ?? b.name}](${b.uri})`);
        break;
      case "resource":
        if ("text" in b.resource) attached.push(`<context ref="${b.resource.uri}">\n${b.resource.text}\n</context>`);
        else attached.push(`<context ref="${b.resource.uri}">(binary content of type ${b.resource.mimeType ?? "unknown"}, not shown)</context>`);
        break;
      case "audio":
        throw new AcpError(ACP_ERRORS.invalid_params, "SCV takes no audio in a prompt (initialize said promptCapabilities.audio: false); send text, images, resource links or embedded resources");
    }
  }
  const text = [parts.join(" ").trim(), ...attached].filter(Boolean).join("\n\n");
  if (text) return text;
  if (hasImages) return "(see the attached image)";
  throw new AcpError(ACP_ERRORS.invalid_params, "the prompt is empty; send at least one text block");
}
