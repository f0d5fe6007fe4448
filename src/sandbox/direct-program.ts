// The direct start's program format (direct.ts, run by direct/x86_64.S): one mapped arena holding the block the
// machine code reads, the three programs of system calls, their strings and the three stacks; arenas are pooled.
// Op (64 bytes): u32 nr (~0 ends), u32 flags (bit i<6: argument i is an offset into the arena whose qword is the
// value; bit 8: a failure is ignored), i32 an errno taken as success, u32 where to store the result (0: nowhere),
// 6 qword arguments.
import { ffi } from "../process/libc";
import { SYS, sys, sysError } from "./sys";

// Block offsets (direct/x86_64.S).
export const B = { programI: 0, programP: 8, programC: 16, flags: 24, stackI: 32, stackP: 40, stackC: 48, pid: 56, failure: 64, mask: 88, allSignals: 96, outcome: 104 } as const;
const BLOCK_SIZE = 4096;
export const FIRST_SLOT = 128;
export const STACK = 16 * 1024;

export type Arg = bigint | number | { slot: number };

/** One mapped region holding the block, the programs, their strings and the three stacks. */
export class Arena {
  readonly base: bigint;
  readonly bytes: Buffer;
  readonly view: DataView;
  private next = BLOCK_SIZE;
  private nextSlot = FIRST_SLOT;
  /** What each op of the three programs does (I, P, C), for the message when one fails. */
  what: { I: string[]; P: string[]; C: string[] } = { I: [], P: [], C: [] };

  /**
   * An arena of at least `size` bytes: one a finished command gave back (its pages already there, and no unmap,
   * which with PID 1 sharing the memory costs every thread a TLB flush), or a new mapping.
   */
  static take(size: number): Arena {
    const i = pool.findIndex((a) => a.size >= size);
    if (i < 0) return new Arena(Math.max(size, ARENA_SIZE));
    const [arena] = pool.splice(i, 1);
    return arena!;
  }

  private constructor(readonly size: number) {
    const addr = sys().syscall(SYS.mmap, 0n, BigInt(size), 3n /* read, write */, 0x22n /* private, anonymous */, -1n, 0n);
    if (addr < 0n) throw sysError("mmap (for a sandboxed command)");
    this.base = addr;
    this.bytes = Buffer.from(ffi().toArrayBuffer(Number(addr) as never, 0, size));
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, size);
  }

  /** Back to the pool once nothing runs on it any more (PID 1 reaped); a pool already full unmaps it. */
  release(): void {
    if (pool.length >= POOL || this.size > ARENA_SIZE) {
      sys().syscall(SYS.munmap, this.base, BigInt(this.size), 0n, 0n, 0n, 0n);
      return;
    }
    this.bytes.fill(0, 0, BLOCK_SIZE);
    this.what = { I: [], P: [], C: [] };
    this.next = BLOCK_SIZE;
    this.nextSlot = FIRST_SLOT;
    pool.push(this);
  }

  /** Bytes in the data area a call's result may be stored into (an offset, as a slot's). */
  cell(bytes: number): number {
    return this.take(bytes);
  }

  /** A qword in the block, for a result a later call reads. */
  slot(bytes = 8): number {
    const at = this.nextSlot;
    this.nextSlot += (bytes + 7) & ~7;
    if (this.nextSlot > BLOCK_SIZE) throw new Error("the sandbox's plan has too many steps");
    return at;
  }

  set64(offset: number, value: bigint | number): void {
    this.view.setBigInt64(offset, BigInt(value), true);
  }

  get64(offset: number): bigint {
    return this.view.getBigInt64(offset, true);
  }

  get32(offset: number): number {
    return this.view.getInt32(offset, true);
  }

  /** Copies `data` in (8-byte aligned); its address. */
  put(data: Uint8Array): bigint {
    const at = this.take(data.length);
    this.bytes.set(data, at);
    return this.base + BigInt(at);
  }

  cstr(s: string): bigint {
    const n = Buffer.byteLength(s);
    const at = this.take(n + 1);
    this.bytes.write(s, at);
    this.bytes[at + n] = 0;
    return this.base + BigInt(at);
  }

  /** A NULL-terminated array of pointers. */
  pointers(items: bigint[]): bigint {
    const at = this.take((items.length + 1) * 8);
    items.forEach((p, i) => this.set64(at + i * 8, p));
    this.set64(at + items.length * 8, 0n);
    return this.base + BigInt(at);
  }

  /** A stack's top (16-byte aligned). */
  stack(): bigint {
    const at = this.take(STACK);
    return (this.base + BigInt(at + STACK)) & ~15n;
  }

  addr(offset: number): bigint {
    return this.base + BigInt(offset);
  }

  /** `n` bytes of the data area (8-byte aligned); their offset. */
  take(n: number): number {
    const at = (this.next + 7) & ~7;
    this.next = at + n;
    if (this.next > this.size) throw new Error("the sandbox's plan did not fit its arena");
    return at;
  }
}

/** Arenas given back by finished commands, for the next ones (a few, of the common size). */
const pool: Arena[] = [];
const POOL = 4;
const ARENA_SIZE = 512 * 1024;

/** A list of system calls with what each one does, for the message when one fails. */
export class Program {
  readonly ops: { nr: number; args: Arg[]; ignore?: boolean; ok?: number; store?: number }[] = [];
  readonly what: string[] = [];

  call(what: string, nr: number, args: Arg[], o: { ignore?: boolean; ok?: number; store?: number } = {}): void {
    this.ops.push({ nr, args, ...o });
    this.what.push(what);
  }

  /** Writes the ops into the arena (64 bytes each, ~0 at the end); their address. */
  write(arena: Arena): bigint {
    const start = arena.take((this.ops.length + 1) * 64);
    arena.bytes.fill(0, start, start + (this.ops.length + 1) * 64); // a pooled arena holds the last command's
    const v = arena.view;
    this.ops.forEach((op, i) => {
      const o = start + i * 64;
      let flags = op.ignore ? 0x100 : 0;
      v.setUint32(o, op.nr, true);
      op.args.forEach((a, j) => {
        if (typeof a === "object") {
          flags |= 1 << j;
          v.setBigInt64(o + 16 + j * 8, BigInt(a.slot), true);
        } else {
          v.setBigInt64(o + 16 + j * 8, BigInt(a), true);
        }
      });
      v.setUint32(o + 4, flags, true);
      v.setInt32(o + 8, op.ok ?? 0, true);
      v.setUint32(o + 12, op.store ?? 0, true);
    });
    v.setUint32(start + this.ops.length * 64, 0xffffffff, true);
    return arena.addr(start);
  }
}
