// Regenerates the message reference in docs/protocol.md from src/protocol/schema.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withGeneratedReference } from "../src/protocol/doc";

const file = join(import.meta.dir, "..", "docs", "protocol.md");
writeFileSync(file, withGeneratedReference(readFileSync(file, "utf8")));
console.log(`updated ${file}`);
