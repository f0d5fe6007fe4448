// The death watch: when an SCV process is SIGKILLed, the process groups its runner started (bash calls, agent
// CLIs, nested SCVs) must stop within 2 seconds, not at the next SCV start-up (which may never come). A tiny
// `/bin/sh` guard, started with the first run, holds the read end of a pipe whose write end only this process
// has (O_CLOEXEC, so no child inherits it). The runner tells it each group as it starts and ends; when the pipe
// reads EOF (this process is gone, however it died), the guard stops the groups still listed: TERM and CONT,
// then KILL a second later, to the group and to any process still carrying the run's tag (a `setsid` escapee).
// The run records stay, so the next reconcile still finds anything the guard could not.
//
// Why a shell script and not a second SCV: a dash process costs well under 2 MiB, where a Bun process costs
// tens. Nothing here runs before the first run, so start-up and the first model request pay nothing.
import { closeSync, writeSync } from "node:fs";
import { makePipe } from "./libc";
import type { ProcessIdentity } from "./types";

/**
 * The guard. Lines on stdin: `+ PID START TAG` (a group started; START is its leader's start time in clock ticks),
 * `= LEADER PID START` (a process of that run which left its group and session, perhaps its tag too: `setsid env
 * -i …`, found by the runner's descendant scan) and `- PID` (the run ended). Identifiers are checked by pattern
 * before use; a PID whose /proc entry now shows another start time is a reused PID and is left alone. Written
 * line by line in plain strings so nothing is interpolated.
 */
const GUARD_SCRIPT = [
  "trap '' INT HUP PIPE TERM",
  "while read -r op pid start tag; do",
  "  case \"$pid\" in ''|*[!0-9]*) continue ;; esac",
  "  case \"$op\" in",
  "    +) case \"$start$tag\" in ''|*[!0-9a-f/]*) continue ;; esac",
  '       eval "g_$pid=\\"\\$start \\$tag\\"" ;;',
  // `= LEADER MEMBER START`: here pid is the leader, start the member's pid, tag its start time.
  "    =) case \"$start$tag\" in ''|*[!0-9]*) continue ;; esac",
  '       eval "m_$start=$tag; l_$pid=\\"\\${l_$pid-} $start\\"" ;;',
  '    -) eval "for m in \\${l_$pid-}; do unset m_\\$m; done"; unset "g_$pid" "l_$pid" ;;',
  "  esac",
  "done",
  // Only the groups still listed, read back from the shell's variables (a long-lived daemon's guard keeps no
  // list that grows with every run).
  "pids=$(set | sed -n 's/^g_\\([0-9][0-9]*\\)=.*/\\1/p')",
  '[ -n "$pids" ] || exit 0',
  "signal_all() {",
  "  sig=$1",
  "  for pid in $pids; do",
  '    eval "v=\\${g_$pid-}"; [ -n "$v" ] || continue',
  '    start=${v%% *}; tag=${v#* }',
  "    if [ -r /proc/$pid/stat ]; then",
  "      s=$(cat /proc/$pid/stat 2>/dev/null); s=${s##*) }; set -- $s",
  '      [ "${20}" = "$start" ] || { unset "g_$pid"; continue; }',
  "    fi",
  "    kill -$sig -$pid 2>/dev/null",
  '    [ "$sig" = TERM ] && kill -CONT -$pid 2>/dev/null',
  '    for f in $(grep -lsz -e "^SCV_RUN_TAG=$tag\\$" -e "^SCV_RUN_TAG=$tag/" /proc/[0-9]*/environ 2>/dev/null); do',
  '      p=${f#/proc/}; kill -$sig "${p%/environ}" 2>/dev/null',
  "    done",
  "  done",
  "}",
  "signal_all TERM",
  "signal_members_sig() { sig=$1; for m in $(set | sed -n 's/^m_\\([0-9][0-9]*\\)=.*/\\1/p'); do eval \"want=\\${m_$m-}\"; s=$(cat /proc/$m/stat 2>/dev/null) || continue; s=${s##*) }; set -- $s; [ \"${20}\" = \"$want\" ] && kill -$sig $m 2>/dev/null; done; }",
  "signal_members_sig TERM",
  "sleep 1",
  "signal_all KILL",
  "signal_members_sig KILL",
].join("\n");

export interface DeathWatch {
  /** A group the runner started: stopped by the guard if this process dies before `ended`. */
  started(leader: ProcessIdentity, tag: string): void;
  ended(leader: ProcessIdentity): void;
  /** A process of `leader`'s run that left its group and session (it may have dropped the run tag too). */
  member(leader: ProcessIdentity, member: ProcessIdentity): void;
  /** The guard's PID once it runs (for tests and `bench/`). */
  guardPid(): number | undefined;
}

/** One per process: every runner of this process shares the guard. */
let shared: DeathWatch | undefined;

export function deathWatch(): DeathWatch {
  return (shared ??= createDeathWatch());
}

function createDeathWatch(): DeathWatch {
  let fd: number | undefined;
  let guard: Bun.Subprocess | undefined;
  const live = new Map<number, string>();
  const members = new Map<number, string[]>();

  const spawnGuard = (): boolean => {
    try {
      const pipe = makePipe();
      try {
        // The script travels in the environment, so the guard's command line is a bare `sh -c 'eval "$W"'`: what
        // SCV runs cannot pick it out by a recognisable argument (sandboxed commands cannot signal it at all).
        const started = Bun.spawn(["/bin/sh", "-c", 'eval "$W"'], {
          stdin: pipe.read,
          stdout: "ignore",
          stderr: "ignore",
          env: { PATH: "/usr/bin:/bin", W: GUARD_SCRIPT },
          detached: true, // its own session: a Ctrl-C or hang-up meant for SCV does not reach it
        });
        guard = started;
        // Killed while runs are live (by something SCV ran, outside the sandbox): a new guard at once, told every run.
        void started.exited.then(() => {
          if (guard !== started || fd === undefined || !live.size) return;
          try {
            closeSync(fd);
          } catch {}
          fd = undefined;
          spawnGuard();
        });
      } finally {
        closeSync(pipe.read);
      }
      guard.unref();
      fd = pipe.write;
      for (const line of live.values()) writeSync(fd, line);
      for (const lines of members.values()) for (const line of lines) writeSync(fd, line);
      return true;
    } catch {
      // No guard (no /bin/sh, no pipe2): the next start-up's reconcile still stops the runs.
      fd = undefined;
      return false;
    }
  };

  const send = (line: string) => {
    if (fd === undefined && !spawnGuard()) return;
    try {
      writeSync(fd!, line);
    } catch {
      // The guard is gone (killed by someone): start a new one, which is told every live group.
      try {
        closeSync(fd!);
      } catch {}
      fd = undefined;
      spawnGuard();
    }
  };

  return {
    started(leader, tag) {
      const line = `+ ${leader.pid} ${leader.startTime} ${tag}\n`;
      live.set(leader.pid, line);
      send(line);
    },
    member(leader, member) {
      if (!live.has(leader.pid)) return;
      const line = `= ${leader.pid} ${member.pid} ${member.startTime}\n`;
      const list = members.get(leader.pid) ?? [];
      list.push(line);
      members.set(leader.pid, list);
      send(line);
    },
    ended(leader) {
      members.delete(leader.pid);
      if (!live.delete(leader.pid)) return;
      if (fd !== undefined) send(`- ${leader.pid}\n`);
    },
    guardPid: () => guard?.pid,
  };
}
