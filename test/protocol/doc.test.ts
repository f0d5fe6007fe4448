import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderProtocolReference } from "../../src/protocol/doc";
import { notifications, requests } from "../../src/protocol/schema";

test("docs/protocol.md carries the reference generated from the schema (run bun scripts/protocol-doc.ts)", () => {
  const doc = readFileSync(join(import.meta.dir, "..", "..", "docs", "protocol.md"), "utf8");
  expect(doc).toContain(renderProtocolReference());
  for (const m of [...Object.keys(requests), ...Object.keys(notifications)]) expect(doc).toContain(`#### \`${m}\``);
});
