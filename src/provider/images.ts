// Images the model sees: a history item keeps only a reference to the file (its path and type), never the
// bytes, so stored sessions stay small and hold no copies. Before each request the referenced files are read,
// checked and, when over the sending limit, downscaled with Bun.Image (JPEG, PNG, WebP; no new dependency), and
// the data URLs are kept per reference for the wire renderers, which are synchronous.
import * as fs from "node:fs";
import * as path from "node:path";

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** What a history item holds for an image: where the file is, never its bytes. */
export interface ImageRef {
  /** Absolute path of the file at the time it was attached. */
  path: string;
  mime: ImageType;
  /** Bytes of the file when it was attached. */
  bytes: number;
}

/** An image file larger than this is refused (it would not be downscaled in reasonable time or memory). */
export const IMAGE_MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Sent images are at most this many bytes; a larger JPEG/PNG/WebP is downscaled, a larger GIF refused. */
export const IMAGE_SEND_MAX_BYTES = 4 * 1024 * 1024;
/** A downscaled image's longest side. */
const DOWNSCALE_MAX_SIDE = 2048;

const MIB = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/** The image type from the file's first bytes, or undefined when it is not one of IMAGE_TYPES. */
export function sniffImage(head: Uint8Array): ImageType | undefined {
  const at = (i: number, ...bytes: number[]) => bytes.every((b, k) => head[i + k] === b);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return undefined;
}

export class ImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImageError";
  }
}

/**
 * Checks a file to attach as an image: a regular file (no final symlink), a PNG, JPEG, GIF or WebP by its bytes,
 * within IMAGE_MAX_FILE_BYTES (a GIF within IMAGE_SEND_MAX_BYTES, since it cannot be downscaled).
 */
export function imageRef(file: string): ImageRef {
  const shown = JSON.stringify(file);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ImageError(`image ${shown} cannot be opened: ${code === "ENOENT" ? "no such file" : (code ?? (e as Error).message)}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new ImageError(`image ${shown} is not a regular file`);
    const head = Buffer.alloc(16);
    fs.readSync(fd, head, 0, 16, 0);
    const mime = sniffImage(head);
    if (!mime) throw new ImageError(`${shown} is not a PNG, JPEG, GIF or WebP image`);
    checkSize(file, mime, st.size);
    return { path: path.resolve(file), mime, bytes: st.size };
  } finally {
    fs.closeSync(fd);
  }
}

function checkSize(file: string, mime: ImageType, size: number): void {
  if (size > IMAGE_MAX_FILE_BYTES) {
    throw new ImageError(`image ${JSON.stringify(file)} is ${MIB(size)} (${size} bytes), over the ${MIB(IMAGE_MAX_FILE_BYTES)} limit for images; make it smaller first`);
  }
  if (mime === "image/gif" && size > IMAGE_SEND_MAX_BYTES) {
    throw new ImageError(
      `GIF image ${JSON.stringify(file)} is ${MIB(size)} (${size} bytes), over the ${MIB(IMAGE_SEND_MAX_BYTES)} limit for images sent to the model, and GIFs are not downscaled; convert it to PNG or JPEG`,
    );
  }
}

/** Per reference: the data URL to send, or why the image cannot be sent now. */
const prepared = new WeakMap<ImageRef, { url: string } | { missing: string }>();

/** Reads (and downscales when needed) every image the items reference that is not ready yet. */
export async function prepareImages(refs: Iterable<ImageRef>): Promise<void> {
  for (const ref of refs) {
    if (prepared.has(ref)) continue;
    try {
      prepared.set(ref, { url: await dataUrlOf(ref) });
    } catch (e) {
      prepared.set(ref, { missing: (e as Error).message });
    }
  }
}

async function dataUrlOf(ref: ImageRef): Promise<string> {
  const current = imageRef(ref.path); // the file may have changed or gone since it was attached
  let bytes: Uint8Array = fs.readFileSync(current.path);
  let mime: ImageType = current.mime;
  if (bytes.length > IMAGE_SEND_MAX_BYTES) {
    // maxPixels bounds the decoded size: a small file may claim a huge canvas.
    const image = new Bun.Image(bytes, { maxPixels: 40_000_000 }).resize(DOWNSCALE_MAX_SIDE, DOWNSCALE_MAX_SIDE, { fit: "inside", withoutEnlargement: true });
    bytes = await image.jpeg({ quality: 85 }).bytes();
    mime = "image/jpeg";
    if (bytes.length > IMAGE_SEND_MAX_BYTES) {
      throw new ImageError(`image ${JSON.stringify(ref.path)} is still ${MIB(bytes.length)} after downscaling, over the ${MIB(IMAGE_SEND_MAX_BYTES)} limit`);
    }
  }
  return `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** Lets go of the loaded bytes of images no request will carry again. */
export function releaseImages(refs: Iterable<ImageRef>): void {
  for (const ref of refs) prepared.delete(ref);
}

/** Whether a history item carries images (its JSON holds their bytes, so it is not cached). */
export function carriesImages(item: { role: string; images?: unknown[] }): boolean {
  return (item.role === "user" || item.role === "images") && !!item.images?.length;
}

/** The image as the renderers send it: a data URL, or a note saying why it is not there. */
export function preparedImage(ref: ImageRef): { url: string } | { missing: string } {
  return prepared.get(ref) ?? { missing: `image ${JSON.stringify(ref.path)} was not loaded` };
}

/** A person's description of the image: `photo.png (image/png, 120 KiB)`. */
export function describeImage(ref: ImageRef): string {
  return `${path.basename(ref.path)} (${ref.mime}, ${Math.max(1, Math.round(ref.bytes / 1024))} KiB)`;
}
