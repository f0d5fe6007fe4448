// Reading a response body: bounded reads, an idle watch that cuts a silent stream, and small helpers.
import { ellipsizeAfter } from "../text/cut";

/** The body as a stream that errors once nothing has arrived for `ms`; every chunk restarts the wait. */
export function watchIdle(body: ReadableStream<Uint8Array>, ms: number, onIdle: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      onIdle();
      out.error(new Error("stream idle"));
      reader.cancel().catch(() => {}); // the idle error above is what the caller sees; the cancel only frees the connection
    }, ms);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      arm();
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          clearTimeout(timer);
          controller.close();
          return;
        }
        arm();
        controller.enqueue(value);
      } catch (e) {
        clearTimeout(timer);
        controller.error(e);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}

export async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

export function tidyText(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return ellipsizeAfter(one, 400);
}

export async function readBounded(res: Response, limit: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {}); // the stream is done with; a failed cancel means it had ended already
  }
  return new TextDecoder().decode(Buffer.concat(parts).subarray(0, limit));
}
