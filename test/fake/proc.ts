import { readdirSync, readFileSync } from "node:fs";

/** True while the process exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}

/** Live processes whose argv is exactly `argv` (say a `sleep` with a duration unique to one test). */
export function pidsWithArgv(argv: string[]): number[] {
  const want = `${argv.join("\0")}\0`;
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8") === want && alive(+name)) out.push(+name);
    } catch {
      // gone
    }
  }
  return out;
}

/** SIGKILLs each pid that is still running (test cleanup). */
export function killAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** The death-watch guard (src/process/watchdog.ts) an SCV process started, if any: its `/bin/sh -c` child. */
export function guardOf(scvPid: number): number | undefined {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== scvPid) continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      // The death watch's guard (src/process/watchdog.ts): its script travels in the environment.
      if (argv[0] === "/bin/sh" && argv[1] === "-c" && argv[2] === 'eval "$W"') return +name;
    } catch {
      // gone
    }
  }
  return undefined;
}

/** The peak resident set size (VmHWM) of a live process in bytes, or 0 once it is gone. */
export function peakRss(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Waits for `proc` to exit, sampling its peak RSS every 10 ms; returns the exit code and the last peak seen. */
export async function exitWithPeak(proc: { pid: number; exited: Promise<number> }): Promise<{ code: number; peak: number }> {
  let peak = 0;
  let done = false;
  const exited = proc.exited.then((code) => {
    done = true;
    return code;
  });
  while (!done) {
    peak = Math.max(peak, peakRss(proc.pid));
    await Promise.race([exited, Bun.sleep(10)]);
  }
  return { code: await exited, peak };
}

/**
 * The host pid of a process that reported its own pid from inside a sandboxed command's PID namespace (`echo $$`
 * there says 2): the descendant of `ancestor` whose innermost pid (NSpid) is `pid`. Outside any PID namespace
 * that is `pid` itself. Never kill a pid a sandboxed command wrote without this: out here it names another process.
 */
export function hostPidOf(pid: number, ancestor: number): number | undefined {
  const parentOf = (p: number) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return 0;
    }
  };
  const descends = (p: number) => {
    for (let q = parentOf(p), hops = 0; q > 1 && hops < 64; q = parentOf(q), hops++) if (q === ancestor) return true;
    return false;
  };
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const line = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${name}/status`, "utf8"))?.[1];
      if (line && Number(line.trim().split(/\s+/).at(-1)) === pid && descends(Number(name))) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
