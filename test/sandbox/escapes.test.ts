// The sandbox's escape table, through the compiled binary: a scripted model has `scv exec` run each attempt as a
// bash call that runs unasked inside the sandbox (auto_run, no --yes), and every attempt leaves evidence only
// if it got through. The same attempts then run with `[sandbox] mode = "off"` and --yes, where each must
// succeed: the table can fail. Everything targeted lives in a throwaway root outside $TMPDIR (which the
// sandbox shows as the private /tmp), the home and SCV_HOME included; no attempt touches anything real, and
// the control run's signals are SIGCONT or go to a sleep the test started.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { needs } from "../fake/needs";
import { fakeModelForFile, binaryForAnyUser, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const BASE = existsSync("/var/tmp") ? "/var/tmp" : "/tmp";

interface Layout {
  root: string;
  home: string;
  scvHome: string;
  ws: string;
  outside: string;
  env: Record<string, string>;
}

const SECRETS = [
  ".ssh/id_rsa", ".gnupg/private-keys-v1.d/key", ".aws/credentials", ".azure/accessTokens.json", ".config/gcloud/credentials.db",
  ".kube/config", ".docker/config.json", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".config/gh/hosts.yml",
  ".codex/auth.json", ".claude/.credentials.json", ".grok/auth.json", ".bash_history", ".zsh_history", ".python_history",
];

function makeLayout(extraConfig: string, owner?: number): Layout {
  const root = mkdtempSync(join(BASE, "scv-sandbox-escapes-"));
  roots.push(root); // removed after the tests even when a run fails before it returns its layout
  const home = join(root, "home");
  const scvHome = join(root, "scv-home");
  const ws = join(root, "ws");
  const outside = join(root, "outside");
  for (const d of [home, scvHome, ws, outside, join(ws, "ev")]) mkdirSync(d, { recursive: true });
  for (const [i, rel] of SECRETS.entries()) {
    mkdirSync(join(home, rel, ".."), { recursive: true });
    writeFileSync(join(home, rel), `SECRET-home-${i}\n`);
  }
  writeFileSync(join(root, "extra-secret"), "SECRET-extra\n");
  for (let k = 0; k < 40; k++) {
    writeFileSync(join(outside, `existing-${k}`), "original\n");
    writeFileSync(join(outside, `mode-${k}`), "x\n");
    chmodSync(join(outside, `mode-${k}`), 0o600);
  }
  writeFileSync(join(outside, "existing-link"), "original\n");
  writeFileSync(
    join(scvHome, "config.toml"),
    `# SECRET-scv-config\n[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n[tools]\nmax_steps = 400\n[sandbox]\nhidden_paths = ["${join(root, "extra-secret")}"]\n${extraConfig}`,
  );
  const git = Bun.spawnSync(["git", "init", "-q", ws], { env: { PATH: process.env.PATH!, HOME: home } });
  if (!git.success) throw new Error(git.stderr.toString());
  writeFileSync(join(ws, "README"), "hello\n");
  mkdirSync(join(ws, ".scv"));
  writeFileSync(join(ws, ".scv", "config.toml"), "# project\n");
  symlinkSync(join(outside, "existing-link"), join(ws, "link-out"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SCV_HOME: scvHome };
  if (owner !== undefined) chownTree(root, owner);
  return { root, home, scvHome, ws, outside, env };
}

/** The throwaway root given to an ordinary user (the table's second run). */
function chownTree(root: string, uid: number): void {
  const r = Bun.spawnSync(["chown", "-R", `${uid}:${uid}`, root]);
  if (!r.success) throw new Error(r.stderr.toString());
}

/** A throwaway uid with no name, no groups and no_new_privs: SCV as an ordinary user. */
export const ORDINARY_UID = 47012;
const asUser = (uid: number | undefined, argv: string[]) => (uid === undefined ? argv : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--no-new-privs", ...argv]);

/** Counts what reached the loopback listeners: tokens `A<n>` sent over TCP, UDP and an abstract Unix socket. */
class Listeners {
  readonly got = new Set<string>();
  tcp4!: number;
  tcp6!: number;
  udp4!: number;
  udp6!: number;
  readonly abstract = `scv-sandbox-escapes-${process.pid}`;
  private closers: (() => void)[] = [];
  async start() {
    const onData = (_s: unknown, data: Buffer) => {
      for (const m of data.toString().matchAll(/A\d+/g)) this.got.add(m[0]);
    };
    const t4 = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: onData } });
    const t6 = Bun.listen({ hostname: "::1", port: 0, socket: { data: onData } });
    const ab = Bun.listen({ unix: `\0${this.abstract}`, socket: { data: onData } });
    const u4 = await Bun.udpSocket({ hostname: "127.0.0.1", socket: { data: (_s, d) => onData(null, Buffer.from(d)) } });
    const u6 = await Bun.udpSocket({ hostname: "::1", socket: { data: (_s, d) => onData(null, Buffer.from(d)) } });
    this.tcp4 = t4.port;
    this.tcp6 = t6.port;
    this.udp4 = u4.port;
    this.udp6 = u6.port;
    this.closers = [() => t4.stop(true), () => t6.stop(true), () => ab.stop(true), () => u4.close(), () => u6.close()];
  }
  stop() {
    for (const c of this.closers) c();
  }
}

interface Attempt {
  name: string;
  /** The bash command; `EV` is this attempt's evidence file in the workspace. */
  command: (l: Layout, n: Listeners, ev: string) => string;
  /** Whether the attempt got through. */
  escaped: (l: Layout, n: Listeners, ev: string, token: string) => boolean;
}

const evidence = (ev: string, marker = "SECRET") => existsSync(ev) && readFileSync(ev, "utf8").includes(marker);
const created = (p: (l: Layout) => string) => (l: Layout) => existsSync(p(l));
const content = (p: (l: Layout) => string, want: string) => (l: Layout) => existsSync(p(l)) && readFileSync(p(l), "utf8").includes(want);

function attempts(): Attempt[] {
  const out: Attempt[] = [];
  const read = (name: string, cmd: (l: Layout, ev: string) => string, marker = "SECRET") =>
    out.push({ name, command: (l, _n, ev) => cmd(l, ev), escaped: (_l, _n, ev) => evidence(ev, marker) });
  const write = (name: string, cmd: (l: Layout) => string, escaped: (l: Layout) => boolean) => out.push({ name, command: (l) => cmd(l), escaped: (l) => escaped(l) });

  // Reads of every hidden path, plainly and by detours.
  for (const rel of SECRETS) read(`read ~/${rel}`, (l, ev) => `cat ${join(l.home, rel)} > ${ev}`);
  read("read $SCV_HOME/config.toml", (l, ev) => `cat ${l.scvHome}/config.toml > ${ev}`);
  read("read a user hidden_paths entry", (l, ev) => `cat ${l.root}/extra-secret > ${ev}`);
  read("read through /proc/self/root", (l, ev) => `cat /proc/self/root${l.home}/.ssh/id_rsa > ${ev}`);
  read("read through .. from the workspace", (_l, ev) => `cat ../home/.ssh/id_rsa > ${ev}`);
  read("read through /proc/self/cwd/..", (_l, ev) => `cat /proc/self/cwd/../home/.aws/credentials > ${ev}`);
  read("read through a symlink made in the workspace", (l, ev) => `ln -sf ${l.home}/.ssh/id_rsa k && cat k > ${ev}`);
  read("read through a hard link made in the workspace", (l, ev) => `ln ${l.home}/.netrc hl && cat hl > ${ev}`);
  read("copy a hidden file into the workspace", (l, ev) => `cp ${l.home}/.npmrc ${ev}`);
  read("move a hidden file into the workspace", (l, ev) => `mv ${l.home}/.pypirc ${ev}`);
  read("read with dd", (l, ev) => `dd if=${l.home}/.kube/config of=${ev} 2>/dev/null`);
  read("grep -r over the home", (l, ev) => `grep -r SECRET ${l.home} > ${ev}`);
  read("find -exec cat over the home", (l, ev) => `find ${l.home} -type f -exec cat {} + > ${ev}`);
  read("tar the home", (l, ev) => `tar cf - -C ${l.home} . | strings > ${ev}`);
  read("perl open of SCV's config", (l, ev) => `perl -e 'open F, "<", "${l.scvHome}/config.toml" or die; print <F>' > ${ev}`);
  read("list the hidden .ssh", (l, ev) => `ls ${l.home}/.ssh > ${ev}`, "id_rsa");
  read("read SCV's environment through /proc/$SCV/environ", (_l, ev) => `tr '\\0' '\\n' < /proc/$SCV/environ > ${ev}`, "SCV_HOME=");
  read("read SCV_HOME through /proc/$SCV/root", (l, ev) => `cat /proc/$SCV/root${l.scvHome}/config.toml > ${ev}`);
  read("read SCV_HOME through /proc/$SCV/cwd", (l, ev) => `cat /proc/$SCV/cwd/../scv-home/config.toml > ${ev}`);
  read("read SCV's memory maps", (_l, ev) => `cat /proc/$SCV/maps > ${ev}`, "r-x");
  read("read a hidden file by its /proc/$SCV/fd", (_l, ev) => `ls -l /proc/$SCV/fd > ${ev}`, "->");
  read("ptrace SCV with gdb", (_l, ev) => `timeout 20 gdb -batch -p $SCV -ex 'info proc' > ${ev} 2>&1; grep -q 'process' ${ev} && grep -q exe ${ev} || rm -f ${ev}`, "exe");
  read("read PID 1's environment (it shares SCV's memory)", (_l, ev) => `tr '\\0' '\\n' < /proc/$P1/environ > ${ev}`, "SCV_HOME=");
  read("ptrace PID 1 with gdb (SCV's memory)", (_l, ev) => `timeout 20 gdb -batch -p $P1 -ex 'info proc' > ${ev} 2>&1; grep -q 'process' ${ev} && grep -q exe ${ev} || rm -f ${ev}`, "exe");
  read("strace SCV", (_l, ev) => `timeout 2 strace -p $SCV -o ${ev}.s 2>/dev/null; [ -s ${ev}.s ] && echo SECRET-traced > ${ev}`);
  read("read a hidden path by its parent directory's symlink", (l, ev) => `ln -sfn ${l.home}/.aws awsdir && cat awsdir/credentials > ${ev}`);
  read("read ~/.gnupg through globbing", (l, ev) => `cat ${l.home}/.gn*/*/* > ${ev}`);

  // Writes outside the workspace, directly and by detours.
  const o = (name: string) => (l: Layout) => join(l.outside, name);
  write("touch outside", (l) => `touch ${o("w1")(l)}`, created(o("w1")));
  write("redirect outside", (l) => `echo x > ${o("w2")(l)}`, created(o("w2")));
  write("cp outside", (l) => `cp README ${o("w3")(l)}`, created(o("w3")));
  write("mv outside", (l) => `echo x > m && mv m ${o("w4")(l)}`, created(o("w4")));
  write("mkdir outside", (l) => `mkdir ${o("w5")(l)}`, created(o("w5")));
  write("tee outside", (l) => `echo x | tee ${o("w6")(l)}`, created(o("w6")));
  write("dd of= outside", (l) => `echo x | dd of=${o("w7")(l)} 2>/dev/null`, created(o("w7")));
  write("write through a symlink the workspace holds", () => `echo PWNED > link-out`, content(o("existing-link"), "PWNED"));
  write("write through a new symlink", (l) => `ln -sf ${o("w8")(l)} s8 && echo x > s8`, created(o("w8")));
  write("write through a symlinked directory", (l) => `ln -sfn ${l.outside} od && echo x > od/w9`, created(o("w9")));
  write("write through /proc/self/root", (l) => `echo x > /proc/self/root${o("w10")(l)}`, created(o("w10")));
  write("write through ..", () => `echo x > ../outside/w11`, created(o("w11")));
  write("write through /proc/self/cwd/..", () => `echo x > /proc/self/cwd/../outside/w12`, created(o("w12")));
  write("append to an existing outside file", (l) => `echo PWNED >> ${o("existing-2")(l)}`, content(o("existing-2"), "PWNED"));
  write("sed -i outside", (l) => `sed -i s/original/PWNED/ ${o("existing-3")(l)}`, content(o("existing-3"), "PWNED"));
  write("truncate outside", (l) => `truncate -s 0 ${o("existing-4")(l)}`, (l) => statSync(o("existing-4")(l)).size === 0);
  write("delete outside", (l) => `rm -f ${o("existing-5")(l)}`, (l) => !existsSync(o("existing-5")(l)));
  write("rename outside", (l) => `mv ${o("existing-6")(l)} ${o("w13")(l)}`, created(o("w13")));
  write("hard link out of the workspace", (l) => `ln README ${o("w14")(l)}`, created(o("w14")));
  write("hard link an outside file in, then write it", (l) => `ln ${o("existing-7")(l)} hl2 && echo PWNED >> hl2`, content(o("existing-7"), "PWNED"));
  write("chmod outside", (l) => `chmod 666 ${o("mode-8")(l)}`, (l) => (statSync(o("mode-8")(l)).mode & 0o777) !== 0o600);
  write("chown outside", (l) => `chown 1:1 ${o("mode-9")(l)}`, (l) => statSync(o("mode-9")(l)).uid === 1);
  write("touch -d (times) outside", (l) => `touch -d 2001-01-01 ${o("mode-10")(l)}`, (l) => statSync(o("mode-10")(l)).mtimeMs < 1e12);
  write("mkfifo outside", (l) => `mkfifo ${o("w15")(l)}`, created(o("w15")));
  write("symlink outside", (l) => `ln -s /etc/passwd ${o("w16")(l)}`, (l) => {
    try {
      return !!readFileSync(o("w16")(l));
    } catch {
      return existsSync(o("w16")(l));
    }
  });
  write("perl write outside", (l) => `perl -e 'open F, ">", "${o("w17")(l)}" or die; print F "x"'`, created(o("w17")));
  write("install outside", (l) => `install README ${o("w18")(l)}`, created(o("w18")));
  write("git init outside", (l) => `git -C ${l.outside} init -q w19`, created(o("w19")));
  write("tar extract outside", (l) => `tar cf t.tar README && tar xf t.tar -C ${l.outside} --transform s/README/w20/`, created(o("w20")));
  write("cp -r a directory outside", (l) => `mkdir -p d && cp -r d ${o("w21")(l)}`, created(o("w21")));
  write("write into SCV_HOME (a planted rule)", (l) => `echo '[]' > ${l.scvHome}/approval-rules.json`, created((l) => join(l.scvHome, "approval-rules.json")));
  write("mkdir in SCV_HOME", (l) => `mkdir ${l.scvHome}/planted`, created((l) => join(l.scvHome, "planted")));
  write("edit SCV's config", (l) => `echo '# PWNED' >> ${l.scvHome}/config.toml`, content((l) => join(l.scvHome, "config.toml"), "PWNED"));
  write("plant an ssh key", (l) => `echo PWNED >> ${l.home}/.ssh/authorized_keys`, created((l) => join(l.home, ".ssh", "authorized_keys")));
  write("write a shell profile in the home", (l) => `echo PWNED > ${l.home}/.bashrc`, created((l) => join(l.home, ".bashrc")));
  write("write through /proc/$SCV/root", (l) => `echo x > /proc/$SCV/root${o("w22")(l)}`, created(o("w22")));
  write("write through /proc/$SCV/cwd", () => `echo x > /proc/$SCV/cwd/../outside/w23`, created(o("w23")));
  write("umount the read-only .git", () => `umount .git; umount -l .git; echo x > .git/hooks/pre-commit`, created((l) => join(l.ws, ".git", "hooks", "pre-commit")));
  write("chroot and write outside", (l) => `chroot / sh -c 'echo x > ${o("w24")(l)}'`, created(o("w24")));
  write("nsenter into SCV's mount namespace", (l) => `nsenter -t $SCV -m sh -c 'echo x > ${o("w25")(l)}'`, created(o("w25")));
  write("unshare a new namespace and write outside", (l) => `unshare -m sh -c 'echo x > ${o("w26")(l)}'`, created(o("w26")));

  // The workspace's .git and .scv.
  const g = (rel: string) => (l: Layout) => join(l.ws, ".git", rel);
  write(".git/hooks/pre-commit", () => `printf '#!/bin/sh\\necho PWNED\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, created(g("hooks/pre-commit")));
  write(".git/hooks by cp", () => `echo x > h && cp h .git/hooks/post-checkout`, created(g("hooks/post-checkout")));
  write(".git/hooks by mv", () => `echo x > h2 && mv h2 .git/hooks/post-merge`, created(g("hooks/post-merge")));
  write(".git/hooks by ln -s", () => `ln -s ../../README .git/hooks/pre-push`, (l) => {
    try {
      statSync(g("hooks/pre-push")(l));
      return true;
    } catch {
      return existsSync(g("hooks/pre-push")(l));
    }
  });
  // What these would run points inside the throwaway root: the control run's later `git commit` runs the
  // fsmonitor command for real, outside any sandbox.
  write(".git/config core.hooksPath", (l) => `git config core.hooksPath ${join(l.root, "hooks-elsewhere")}`, content(g("config"), "hooksPath"));
  write(".git/config core.fsmonitor", (l) => `echo '[core] fsmonitor = touch ${join(l.root, "fsmonitor-ran")}' >> .git/config`, content(g("config"), "fsmonitor"));
  // These undo themselves once they got through (so the attempts after them still find .git and .scv), and
  // leave their evidence file only then.
  const undone = (name: string, cmd: string) => out.push({ name, command: (_l, _n, ev) => `${cmd} && touch ${ev}`, escaped: (_l, _n, ev) => existsSync(ev) });
  undone("rename .git", `mv .git .git-old && mv .git-old .git`);
  undone("delete .git/HEAD", `cp .git/HEAD h0 && rm .git/HEAD && cp h0 .git/HEAD`);
  write("git commit writes .git", () => `git -c user.email=a@b -c user.name=a add README && git -c user.email=a@b -c user.name=a commit -qm x`, created(g("index")));
  write(".git through a symlink", () => `ln -sfn .git gl && echo x > gl/description`, content(g("description"), "x\n"));
  write(".git through /proc/self/cwd", () => `echo x > /proc/self/cwd/.git/info/planted`, created(g("info/planted")));
  write(".git by sed -i", () => `sed -i 's/bare = false/bare = true/' .git/config`, content(g("config"), "bare = true"));
  const s = (rel: string) => (l: Layout) => join(l.ws, ".scv", rel);
  write(".scv/config.toml overwrite", () => `echo '# PWNED' > .scv/config.toml`, content(s("config.toml"), "PWNED"));
  write(".scv/config.toml append", () => `echo '# PWNED' >> .scv/config.toml`, content(s("config.toml"), "PWNED"));
  write(".scv new file", () => `echo x > .scv/rules.json`, created(s("rules.json")));
  undone(".scv delete", `cp .scv/config.toml c0 && rm .scv/config.toml && cp c0 .scv/config.toml`);
  undone("rename .scv", `mv .scv .scv-old && mv .scv-old .scv`);
  write(".scv through ..", () => `echo '# PWNED' > ../ws/.scv/config.toml`, content(s("config.toml"), "PWNED"));

  // The network: TCP and UDP to loopback listeners, IPv4 and IPv6, and an abstract Unix socket.
  const net = (name: string, cmd: (n: Listeners, token: string) => string) =>
    out.push({ name, command: (_l, n, ev) => cmd(n, tokenOf(ev)), escaped: (_l, n, ev) => n.got.has(tokenOf(ev)) });
  net("TCP 127.0.0.1 with bash /dev/tcp", (n, t) => `echo ${t} > /dev/tcp/127.0.0.1/${n.tcp4}`);
  net("TCP ::1 with bash /dev/tcp", (n, t) => `echo ${t} > /dev/tcp/::1/${n.tcp6}`);
  net("TCP localhost with bash /dev/tcp", (n, t) => `echo ${t} > /dev/tcp/localhost/${n.tcp4}`);
  net("TCP 127.0.0.1 with curl", (n, t) => `curl -s -m 3 -d ${t} http://127.0.0.1:${n.tcp4}/`);
  net("TCP [::1] with curl", (n, t) => `curl -s -m 3 -d ${t} 'http://[::1]:${n.tcp6}/'`);
  net("TCP with perl", (n, t) => `perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new("127.0.0.1:${n.tcp4}") or die; print $s "${t}"'`);
  net("TCP 127.0.0.2 (the loopback range)", (n, t) => `echo ${t} > /dev/tcp/127.0.0.2/${n.tcp4} || echo ${t} > /dev/tcp/127.0.0.1/${n.tcp4}`);
  net("TCP to ::ffff:127.0.0.1", (n, t) => `curl -s -m 3 -d ${t} 'http://[::ffff:127.0.0.1]:${n.tcp4}/'`);
  net("UDP 127.0.0.1 with bash /dev/udp", (n, t) => `echo ${t} > /dev/udp/127.0.0.1/${n.udp4}`);
  net("UDP ::1 with bash /dev/udp", (n, t) => `echo ${t} > /dev/udp/::1/${n.udp6}`);
  net("UDP with perl", (n, t) => `perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(PeerAddr=>"127.0.0.1:${n.udp4}",Proto=>"udp") or die; $s->send("${t}")'`);
  net("UDP after bringing lo up", (n, t) => `ip link set lo up 2>/dev/null; echo ${t} > /dev/udp/127.0.0.1/${n.udp4}`);
  net("TCP after bringing lo up", (n, t) => `ip link set lo up 2>/dev/null; echo ${t} > /dev/tcp/127.0.0.1/${n.tcp4}`);
  net("abstract Unix socket", (n, t) => `perl -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) or die; connect(S, pack_sockaddr_un("\\0${n.abstract}")) or die; send(S, "${t}", 0)'`);

  // Signals and traces: SCV, its death watch, a process outside (SIGCONT to SCV and the watch is harmless).
  const sig = (name: string, cmd: (l: Layout, ev: string) => string) => out.push({ name, command: (l, _n, ev) => cmd(l, ev), escaped: (_l, _n, ev) => existsSync(ev) });
  sig("SIGCONT to SCV ($SCV)", (_l, ev) => `kill -CONT $SCV && touch ${ev}`);
  sig("signal 0 to SCV", (_l, ev) => `kill -0 $SCV && touch ${ev}`);
  sig("SIGCONT to the death watch", (l, ev) => `kill -CONT $(cat ${l.ws}/guard.pid) && touch ${ev}`);
  sig("signal 0 to the death watch", (l, ev) => `kill -0 $(cat ${l.ws}/guard.pid) && touch ${ev}`);
  sig("SIGTERM to an outside process", (l, ev) => `kill -TERM $(cat ${l.ws}/victim.pid) && touch ${ev}`);
  sig("SIGCONT to SCV's process group", (_l, ev) => `kill -CONT -- -$(ps -o pgid= $SCV | tr -d ' ') && touch ${ev}`);
  sig("perl kill to SCV", (_l, ev) => `perl -e "kill(0, $SCV) or exit 1" && touch ${ev}`);
  sig("ptrace attach with gdb (exit status)", (_l, ev) => `timeout 20 gdb -batch -p $SCV -ex detach 2>&1 | grep -q 'detached' && touch ${ev}`);
  sig("SIGCONT to PID 1 (SCV's memory)", (_l, ev) => `kill -CONT $P1 && touch ${ev}`);
  sig("renice SCV", (_l, ev) => `renice -n 1 -p $SCV >/dev/null && touch ${ev}`);
  sig("prlimit SCV", (_l, ev) => `prlimit --pid $SCV --core=0:0 && touch ${ev}`);
  sig("write SCV's oom_score_adj", (_l, ev) => `echo 1000 > /proc/$SCV/oom_score_adj && touch ${ev}`);
  write("leave a file in the machine's /tmp", () => `echo x > ${LEAKS[0]}`, () => existsSync(LEAKS[0]!));
  write("leave a file in the machine's /dev/shm", () => `echo x > ${LEAKS[1]}`, () => existsSync(LEAKS[1]!));
  sig("root capabilities (CapEff: modules, raw I/O, mounts)", (_l, ev) => `grep -q 'CapEff:\\s*0*[1-9a-f]' /proc/self/status && touch ${ev}`);
  sig("a capability in the bounding set", (_l, ev) => `grep -q 'CapBnd:\\s*0*[1-9a-f]' /proc/self/status && touch ${ev}`);
  sig("the daemon socket in SCV_HOME", (l, ev) => `ls ${l.scvHome} > ${ev}.l 2>/dev/null && grep -q config ${ev}.l && touch ${ev}`);
  return out;
}

/** Files a leak through the shared /tmp or /dev/shm would leave (the control run does; removed after). */
const LEAKS = [`/tmp/scv-sandbox-leak-${process.pid}`, `/dev/shm/scv-sandbox-leak-${process.pid}`];

const tokenOf = (ev: string) => `A${ev.slice(ev.lastIndexOf("/") + 1)}`;

interface RunOutcome {
  escaped: string[];
  held: string[];
  code: number;
  stderr: string;
}

async function runTable(sandbox: boolean, listeners: Listeners, uid?: number): Promise<RunOutcome & { layout: Layout; total: number }> {
  // A run starts from nothing: an earlier run's control left tokens at the listeners and files in the shared /tmp.
  listeners.got.clear();
  for (const leak of LEAKS) rmSync(leak, { force: true });
  const layout = makeLayout(sandbox ? "" : `mode = "off"\n`, uid);
  const table = attempts().filter((a) => uid === undefined || !ROOT_ONLY.has(a.name));
  const victim = Bun.spawn(asUser(uid, ["sleep", "300"]), { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  writeFileSync(join(layout.ws, "victim.pid"), `${victim.pid}\n`);
  // Each payload is decoded and evaluated by the shell, so the lexical guard cannot read (or block) it: what is
  // tested is the sandbox alone, as when the guard is fooled.
  // $SCV is SCV's pid (the command's parent only without a PID namespace; with one, SCV is not even visible).
  // $P1 is the namespace's PID 1, which SCV starts sharing its own memory (direct.ts), or SCV without one.
  const hidden = (cmd: string) => `SCV=$(cat ${layout.ws}/scv.pid); P1=1; [ "$$" -gt 2 ] && P1=$SCV; eval "$(echo ${Buffer.from(cmd).toString("base64")} | base64 -d)"`;
  const calls = table.map((a, i) => ({ name: "bash", arguments: { command: hidden(a.command(layout, listeners, join(layout.ws, "ev", String(i)))) } }));
  fake.clear();
  // The first call starts the death watch; the test then writes its pid for the later attempts.
  fake.queue(toolCalls([{ name: "bash", arguments: { command: `for i in $(seq 100); do [ -s guard.pid ] && break; sleep 0.05; done; cat guard.pid` } }]));
  // One call per step: calls of one step may run together, and some attempts (renaming .git) would spoil others.
  for (const call of calls) fake.queue(toolCalls([call]));
  fake.queue(text("done"));
  const scv = Bun.spawn(asUser(uid, [uid === undefined ? requireBinary() : binaryForAnyUser(), "exec", ...(sandbox ? [] : ["--yes"]), "go"]), { cwd: layout.ws, env: layout.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  writeFileSync(join(layout.ws, "scv.pid"), `${scv.pid}\n`);
  const { guardOf } = await import("../fake/proc");
  for (let i = 0; i < 200; i++) {
    const guard = guardOf(scv.pid);
    if (guard) {
      writeFileSync(join(layout.ws, "guard.pid"), `${guard}\n`);
      break;
    }
    await Bun.sleep(25);
  }
  const code = await scv.exited;
  const stderr = await new Response(scv.stderr).text();
  await Bun.sleep(200); // UDP datagrams in flight
  const escaped: string[] = [];
  const held: string[] = [];
  table.forEach((a, i) => {
    let got: boolean;
    try {
      got = a.escaped(layout, listeners, join(layout.ws, "ev", String(i)), "");
    } catch {
      got = true; // the target is not as it was left
    }
    (got ? escaped : held).push(a.name);
  });
  victim.kill("SIGKILL");
  await victim.exited;
  return { escaped, held, code, stderr, layout, total: table.length };
}

const listeners = new Listeners();
const roots: string[] = [];
beforeAll(() => listeners.start());
afterAll(() => {
  listeners.stop();
  for (const r of [...roots, ...LEAKS]) rmSync(r, { recursive: true, force: true });
});

test("at least 100 escape attempts: none gets out of the sandbox, every one gets through with the sandbox off", async () => {
  const on = await runTable(true, listeners);
  for (const leak of LEAKS) rmSync(leak, { force: true });
  const off = await runTable(false, listeners);
  console.log(`sandbox escapes: ${on.total} attempts, ${on.escaped.length} got out with the sandbox on; ${off.escaped.length} of ${off.total} got through with it off`);
  expect(on.total).toBeGreaterThanOrEqual(100);
  expect({ code: on.code, stderr: on.code ? on.stderr : "" }).toEqual({ code: 0, stderr: "" });
  expect(on.escaped).toEqual([]);
  // The control: each attempt works without the sandbox, so none of the above passed by being broken.
  expect(off.held).toEqual([]);
}, 240_000);

/**
 * Left out of the ordinary user's table: attempts only root could make even without a sandbox (their control
 * would fail). Renicing or prlimiting SCV stay in: the PID namespace hides SCV from the command.
 */
const ROOT_ONLY = new Set<string>([
  "chown outside",
  "chroot and write outside",
  "nsenter into SCV's mount namespace",
  "unshare a new namespace and write outside",
  "root capabilities (CapEff: modules, raw I/O, mounts)",
]);

test.skipIf(!needs("root"))("as an ordinary user (a throwaway uid, no_new_privs): the same table, none gets out; every one gets through with the sandbox off", async () => {
  const probe = Bun.spawnSync(asUser(ORDINARY_UID, [binaryForAnyUser(), "__sandbox", "--probe"]), { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", BUN_JSC_useConcurrentJIT: "0", BUN_JSC_useWarmUpMarkedBlocks: "0", MIMALLOC_SCAVENGER: "0" } });
  console.log(`the probe as uid ${ORDINARY_UID}: ${probe.stdout.toString().trim()}`);
  const on = await runTable(true, listeners, ORDINARY_UID);
  for (const leak of LEAKS) rmSync(leak, { force: true });
  const off = await runTable(false, listeners, ORDINARY_UID);
  console.log(`sandbox escapes as uid ${ORDINARY_UID}: ${on.total} attempts, ${on.escaped.length} got out with the sandbox on; ${off.escaped.length} of ${off.total} got through with it off`);
  if (off.held.length) console.log(`held with the sandbox off: ${off.held.join("; ")}`);
  expect(JSON.parse(probe.stdout.toString())).toMatchObject({ namespaces: true, userns: true });
  expect({ code: on.code, stderr: on.code ? on.stderr : "" }).toEqual({ code: 0, stderr: "" });
  expect(on.escaped).toEqual([]);
  expect(off.held).toEqual([]);
}, 240_000);
