// Random hex names and SHA-256 digests from the runtime's native crypto (Web Crypto and Bun.CryptoHasher).
// node:crypto would do the same, but loading it (Node's stream machinery comes with it) costs about 3 ms of
// start-up, which a nested SCV child would spend before its first model request.

/** `bytes` random bytes as lowercase hex (2 characters per byte). */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/** The SHA-256 of `data` (a string is hashed as UTF-8) as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
