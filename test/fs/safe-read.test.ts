import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBoundedPrefix, readBoundedText, readBoundedTextIfExists, SafeReadError } from "../../src/fs/safe-read";

const dir = mkdtempSync(join(tmpdir(), "scv-safe-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const opts = { what: "config file", maxBytes: 1024 };

function failure(fn: () => unknown): SafeReadError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SafeReadError) return e;
    throw e;
  }
  throw new Error("expected a SafeReadError");
}

describe("readBoundedText", () => {
  test("reads a regular file", () => {
    const f = join(dir, "ok.toml");
    writeFileSync(f, "a = 1\n");
    expect(readBoundedText(f, opts)).toBe("a = 1\n");
  });

  test("a file exactly at the limit is read, one byte more is refused", () => {
    const f = join(dir, "edge");
    writeFileSync(f, "x".repeat(1024));
    expect(readBoundedText(f, opts).length).toBe(1024);
    writeFileSync(f, "x".repeat(1025));
    const e = failure(() => readBoundedText(f, opts));
    expect(e.reason).toBe("too_large");
    expect(e.message).toContain(f);
    expect(e.message).toContain("1 KiB");
  });

  test("a FIFO fails at once instead of hanging", () => {
    const f = join(dir, "fifo");
    Bun.spawnSync(["mkfifo", f]);
    const started = performance.now();
    const e = failure(() => readBoundedText(f, opts));
    expect(e.reason).toBe("not_regular");
    expect(e.message).toContain("FIFO");
    expect(performance.now() - started).toBeLessThan(10_000); // refused, not blocked forever (bound for a busy machine)
  });

  test("a link to /dev/zero is refused without reading", () => {
    const f = join(dir, "zero");
    symlinkSync("/dev/zero", f);
    const e = failure(() => readBoundedText(f, opts));
    expect(e.reason).toBe("not_regular");
    expect(e.message).toContain("character device");
  });

  test("a directory is refused with a clear message", () => {
    const d = join(dir, "adir");
    mkdirSync(d);
    const e = failure(() => readBoundedText(d, opts));
    expect(e.reason).toBe("not_regular");
    expect(e.message).toContain("directory");
  });

  test("a final symlink is refused when the caller says so, followed otherwise", () => {
    const target = join(dir, "target");
    writeFileSync(target, "hello");
    const link = join(dir, "link");
    symlinkSync(target, link);
    expect(readBoundedText(link, opts)).toBe("hello");
    expect(failure(() => readBoundedText(link, { ...opts, followSymlink: false })).reason).toBe("symlink");
  });

  test("missing files: an error naming the file, or undefined from the IfExists form", () => {
    const f = join(dir, "nope");
    const e = failure(() => readBoundedText(f, opts));
    expect(e.reason).toBe("missing");
    expect(e.message).toContain(f);
    expect(readBoundedTextIfExists(f, opts)).toBeUndefined();
  });
});

describe("readBoundedPrefix", () => {
  test("a longer file is cut at the limit instead of refused; a shorter one is whole", () => {
    const f = join(dir, "long");
    writeFileSync(f, "y".repeat(5000));
    const cut = readBoundedPrefix(f, opts);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes.toString()).toBe("y".repeat(1024));
    writeFileSync(f, "y".repeat(1024));
    expect(readBoundedPrefix(f, opts)).toMatchObject({ truncated: false });
    expect(readBoundedPrefix(f, opts).bytes.length).toBe(1024);
  });

  test("a device (a file that never ends) is refused before any read", () => {
    const started = performance.now();
    const e = failure(() => readBoundedPrefix("/dev/zero", opts));
    expect(e.reason).toBe("not_regular");
    expect(performance.now() - started).toBeLessThan(10_000); // refused, not blocked forever (bound for a busy machine)
  });

  test("within: a file opened outside the given directory is refused", () => {
    const inner = join(dir, "inner");
    mkdirSync(inner, { recursive: true });
    const f = join(inner, "SKILL.md");
    writeFileSync(f, "hello");
    expect(readBoundedPrefix(f, { ...opts, within: inner }).bytes.toString()).toBe("hello");
    const other = join(dir, "other");
    mkdirSync(other, { recursive: true });
    const e = failure(() => readBoundedPrefix(f, { ...opts, within: other }));
    expect(e.reason).toBe("outside");
    expect(e.message).toContain("no longer inside");
    // A parent directory that is a symlink leads the open elsewhere: the descriptor shows it.
    const viaLink = join(dir, "via-link");
    symlinkSync(inner, viaLink);
    expect(failure(() => readBoundedPrefix(join(viaLink, "SKILL.md"), { ...opts, within: viaLink })).reason).toBe("outside");
  });
});
