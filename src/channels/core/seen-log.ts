// A bounded, durable memory of the platform IDs already taken in, so a redelivery (even after a restart) is
// dropped. Each record is one JSON line appended with fsync before the platform may be acknowledged; once the
// file holds twice `keep` records it is rewritten with the newest `keep`, so it never grows without end.
import { appendLine, parseLines } from "../../chatlog/log";
import { writePrivateFileAtomic } from "../../fs/private-file";
import { readBoundedTextIfExists } from "../../fs/safe-read";

export interface SeenLogOptions {
  /** How many records survive a compaction. */
  keep: number;
  /** IDs in every record (a record of one ID is stored as a bare string). */
  idsPerRecord: number;
  /** Names the file in a read error. */
  what: string;
  maxBytes: number;
  /** IDs known from elsewhere (a durable queue) that count as seen after a load or a compaction. */
  alsoSeen?: () => Iterable<string>;
}

export class SeenLog {
  private readonly seen = new Set<string>();
  private lines = 0;

  constructor(
    private readonly file: string,
    private readonly opts: SeenLogOptions,
  ) {
    const lines = parseLines<string | string[]>(readBoundedTextIfExists(file, { what: opts.what, maxBytes: opts.maxBytes, followSymlink: false }));
    for (const line of lines) for (const id of Array.isArray(line) ? line : [line]) this.seen.add(String(id));
    this.lines = lines.length;
    this.addAlsoSeen();
  }

  has(id: string): boolean {
    return this.seen.has(id);
  }

  /** Remembers one record's IDs in one write (and fsync): acknowledgements wait for it. */
  add(...ids: string[]): void {
    for (const id of ids) this.seen.add(id);
    appendLine(this.file, ids.length === 1 ? ids[0] : ids);
    if (++this.lines > this.opts.keep * 2) this.compact();
  }

  private compact() {
    const per = this.opts.idsPerRecord;
    const keep = [...this.seen].slice(-this.opts.keep * per);
    const lines: string[] = [];
    for (let i = 0; i < keep.length; i += per) lines.push(`${JSON.stringify(per === 1 ? keep[i] : keep.slice(i, i + per))}\n`);
    writePrivateFileAtomic(this.file, lines.join(""));
    this.seen.clear();
    for (const id of keep) this.seen.add(id);
    this.addAlsoSeen();
    this.lines = lines.length;
  }

  private addAlsoSeen() {
    for (const id of this.opts.alsoSeen?.() ?? []) this.seen.add(id);
  }
}
