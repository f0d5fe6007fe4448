// The id of a JSON-RPC request whose line was skipped unparsed (over the size or shape limit), read from the
// line's kept start or end: a top-level `"id"` before the first large value (`{"jsonrpc":"2.0","id":7,…`), or
// as the object's last member (`…,"id":7}`). So the request is answered with its own id, not `null`, and the
// client stops waiting. Only a top-level member counts: an `"id"` inside `params` is skipped over.

export type RequestId = string | number;

export function skippedRequestId(head: string, tail: string): RequestId | undefined {
  return leadingId(head) ?? trailingId(tail);
}

function validId(v: unknown): RequestId | undefined {
  return typeof v === "string" || (typeof v === "number" && Number.isInteger(v)) ? v : undefined;
}

/** Walks the object's top-level members from its start until `id`, or until the kept text ends. */
function leadingId(text: string): RequestId | undefined {
  let i = skip(text, 0);
  if (text[i] !== "{") return undefined;
  i++;
  while (i < text.length) {
    i = skip(text, i);
    const key = stringAt(text, i);
    if (!key) return undefined;
    i = skip(text, key.end);
    if (text[i] !== ":") return undefined;
    i = skip(text, i + 1);
    const end = valueEnd(text, i);
    if (end === undefined) return undefined;
    if (key.value === "id") {
      try {
        return validId(JSON.parse(text.slice(i, end)));
      } catch {
        return undefined;
      }
    }
    i = skip(text, end);
    if (text[i] !== ",") return undefined;
    i++;
  }
  return undefined;
}

/** `…,"id":7}` at the very end of a line: the object's last member, at the top level. */
function trailingId(text: string): RequestId | undefined {
  const m = /,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*}\s*$/.exec(text);
  if (!m) return undefined;
  try {
    return validId(JSON.parse(m[1]!));
  } catch {
    return undefined;
  }
}

function skip(text: string, i: number): number {
  while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  return i;
}

function stringAt(text: string, i: number): { value: string; end: number } | undefined {
  if (text[i] !== '"') return undefined;
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') {
      try {
        return { value: JSON.parse(text.slice(i, j + 1)), end: j + 1 };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Where the value starting at `i` ends; undefined when the kept text ends inside it. */
function valueEnd(text: string, i: number): number | undefined {
  if (text[i] === '"') return stringAt(text, i)?.end;
  if (text[i] === "{" || text[i] === "[") {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j]!;
      if (c === '"') {
        const s = stringAt(text, j);
        if (!s) return undefined;
        j = s.end - 1;
      } else if (c === "{" || c === "[") depth++;
      else if ((c === "}" || c === "]") && --depth === 0) return j + 1;
    }
    return undefined;
  }
  const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
  return m && i + m[0].length < text.length ? i + m[0].length : undefined;
}
