// What a test needs from this machine beyond Bun: `test.skipIf(!needs("tmux"))(…)`. Locally a missing need skips
// the test, said once per need on stderr; under CI=true it fails the test file instead (the error says what to
// install), because `.ci/run` installs every need: a green CI run has run every test.
import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";

const NEEDS = {
  tmux: { has: () => !!Bun.which("tmux"), install: "apt-get install tmux" },
  script: { has: () => !!Bun.which("script"), install: "apt-get install util-linux (script)" },
  chromium: { has: () => existsSync("/usr/bin/chromium"), install: "apt-get install chromium (/usr/bin/chromium)" },
  openssl: { has: () => !!Bun.which("openssl"), install: "apt-get install openssl" },
  root: { has: () => process.getuid?.() === 0, install: "run the tests as root (CI runs as root)" },
  binutils: { has: () => !!Bun.which("as") && !!Bun.which("objcopy"), install: "apt-get install binutils (as, objcopy)" },
  x86_64: { has: () => process.arch === "x64", install: "an x86_64 machine (the PID namespace's PID 1 is x86_64 machine code)" },
  "mount namespace": { has: () => spawnsOk(["unshare", "-m", "true"]), install: "util-linux's unshare, run as root (unshare -m)" },
  "user namespaces": { has: () => spawnsOk(["unshare", "-Urmn", "true"]), install: "util-linux's unshare and unprivileged user namespaces (unshare -Urmn)" },
  "/dev/shm on its own file system": {
    has: () => existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(tmpdir()).dev,
    install: "a tmpfs at /dev/shm apart from $TMPDIR's file system",
  },
} as const;

export type Need = keyof typeof NEEDS;

const known = new Map<Need, boolean>();

/** True when this machine has `need`; false (the test skips) locally; throws under CI=true, saying what to install. */
export function needs(need: Need): boolean {
  let has = known.get(need);
  if (has === undefined) {
    has = NEEDS[need].has();
    known.set(need, has);
    if (!has) {
      if (process.env.CI === "true") throw new Error(`CI=true and this machine lacks ${need}, which a test needs: ${NEEDS[need].install} (.ci/run installs it)`);
      console.warn(`skipped: tests that need ${need} (${NEEDS[need].install})`);
    }
  }
  return has;
}

function spawnsOk(argv: string[]): boolean {
  try {
    return Bun.spawnSync(argv, { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  } catch {
    return false; // the program itself is missing
  }
}
