import { describe, expect, test } from "bun:test";
import { clipChars, cutUtf8, cutUtf8Decoded, ellipsize, ellipsizeAfter, limitText, tailUtf8 } from "../../src/text/cut";

describe("UTF-8 byte cutters never split a character", () => {
  test("cutUtf8 backs off to the character's start", () => {
    expect(cutUtf8("ab€", 3)).toBe("ab"); // € is 3 bytes
    expect(cutUtf8("ab€", 5)).toBe("ab€");
    expect(cutUtf8("ab€c", 5)).toBe("ab€");
  });

  test("cutUtf8Decoded drops the replacement for a split character, and one the text ended in", () => {
    expect(cutUtf8Decoded("ab€", 4)).toBe("ab");
    expect(cutUtf8Decoded("ab\uFFFDcd", 5)).toBe("ab"); // the text's own U+FFFD at the cut goes too
    expect(cutUtf8("ab\uFFFDcd", 5)).toBe("ab\uFFFD"); // where cutUtf8 keeps it: why both exist
  });

  test("tailUtf8 starts on a character boundary", () => {
    expect(tailUtf8("€ab", 4)).toBe("ab");
    expect(tailUtf8("€ab", 5)).toBe("€ab");
  });

  test("limitText says where it cut, within the limit", () => {
    const out = limitText("x".repeat(100), 60);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(60);
    expect(out.endsWith("[output truncated to 60 bytes]")).toBe(true);
    expect(limitText("short", 60)).toBe("short");
  });
});

describe("character cutters", () => {
  test("ellipsize keeps `max` characters, the last an ellipsis", () => {
    expect(ellipsize("abcdef", 4)).toBe("abc…");
    expect(ellipsize("abcd", 4)).toBe("abcd");
  });

  test("ellipsizeAfter keeps `max` characters and adds the ellipsis", () => {
    expect(ellipsizeAfter("abcdef", 4)).toBe("abcd…");
    expect(ellipsizeAfter("abcd", 4)).toBe("abcd");
  });

  test("clipChars never leaves half a surrogate pair and says how long the text was", () => {
    expect(clipChars("ab😀cd", 3)).toBe("ab... (cut, 6 characters)");
    expect(clipChars("abc", 3)).toBe("abc");
  });
});
