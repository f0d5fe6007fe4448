// What auto mode still asks about (src/guard/loss.ts): a table of commands over a real workspace on disk, each
// with the loss it must name (a fragment of the reason) or none. The workspace holds what checkpoints leave out
// (`.env`, a gitignored file and folder, a 17 MiB file, a symbolic link) next to ordinary recorded files, so the
// false-positive rows (`rm build/out.o`, `echo x > new.txt`, `sed -i` on a source file) are measured too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classifyCommand, lossReason, type LossContext } from "../../src/guard/index";

let root = "";
let ctx: LossContext;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scv-guard-loss-")));
  const ws = join(root, "ws");
  for (const d of ["src", "build", "local", "empty", "docs", "out"]) mkdirSync(join(ws, d), { recursive: true });
  const files: Record<string, string> = {
    ".env": "TOKEN=x\n", ".gitignore": "*.log\nlocal/\n", "app.log": "log\n", "local/cache.txt": "c\n", "notes.txt": "notes\n",
    "src/main.c": "int main;\n", "build/out.o": "o\n", "docs/a.md": "a\n", "out/.env": "K=1\n",
  };
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(ws, rel), text);
  writeFileSync(join(ws, "big.bin"), "");
  truncateSync(join(ws, "big.bin"), 17 * 1024 * 1024);
  symlinkSync("notes.txt", join(ws, "link"));
  ctx = { workspace: ws, home: join(root, "home"), scvHome: join(root, "home", ".scv"), checkpoints: { enabled: true, max_file_bytes: 16 * 1024 * 1024 } };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Each command, and a fragment its loss reason must contain; `undefined`: it may run unasked in the sandbox. */
const TABLE: [string, string | undefined][] = [
  // Bulk deletes and overwrites: always ask.
  ["rm -rf *", "deletes files in bulk (`rm -rf`)"],
  ["rm -rf .env build", "deletes files in bulk (`rm -rf`)"],
  ["rm -R docs", "`rm -R`"],
  ["rm --recursive docs", "`rm --recursive`"],
  ["rm --rec docs", "`rm --rec`"],
  ["rm *.o", "`rm *.o`"],
  ["rm -f -- *", "`rm *`"],
  ["find . -delete", "`find -delete`"],
  ["find . -name '*.o' -exec rm {} +", "`find -exec rm`"],
  ["find . -name '*.o' | xargs rm -f", "`xargs rm`"],
  ["git clean -fdx", "`git clean -fdx`"],
  ["git clean -f", "deletes files git does not track"],
  ["git -C . clean -fd", "`git clean -fd`"],
  ["git checkout -- .", "discards uncommitted changes"],
  ["git checkout .", "`git checkout .`"],
  ["git checkout HEAD~1 -- src/main.c", "discards uncommitted changes"],
  ["git checkout src/main.c", "`git checkout src/main.c`"],
  ["git checkout -f main", "`git checkout --force`"],
  ["git restore .", "discards uncommitted changes"],
  ["git restore --staged --worktree src", "discards uncommitted changes"],
  ["git reset --hard", "`git reset --hard`"],
  ["git reset --hard HEAD~3", "`git reset --hard`"],
  ["git stash -u", "removes untracked files"],
  ["git stash push --include-untracked", "removes untracked files"],
  ["git switch --discard-changes main", "discards uncommitted changes"],
  ["git rm -rf src", "`git rm -rf src`"],
  ["rsync -a --delete empty/ ./", "`rsync --delete`"],
  ["rsync -a --delete-after empty/ docs/", "`rsync --delete-after`"],
  ["truncate -s 0 big.bin", "`big.bin`"],
  ["truncate -s 0 notes.txt", "existing file `notes.txt`"],
  ["truncate --bogus notes.txt", "`truncate`"],
  ["shred -u notes.txt", "`shred`"],
  [": > notes.txt", "existing file `notes.txt` (`> notes.txt`)"],
  ["echo x >| notes.txt", "(`>| notes.txt`)"],
  ["make &> notes.txt", "(`&> notes.txt`)"],
  ["echo x >&notes.txt", "(`>& notes.txt`)"],
  ["echo TOKEN=y > .env", "rewind cannot bring back (secret-like"],
  ["ls > app.log", "(excluded by .gitignore"],
  ["echo x > \"$OUT\"", "only known when the shell runs it"],
  ["dd if=/dev/zero of=notes.txt bs=1 count=1", "`dd of=`"],
  ["echo x | tee notes.txt", "`notes.txt` (`tee`)"],
  // Named files checkpoints leave out: asks, saying which and why.
  ["rm .env", "`.env`, which rewind cannot bring back (secret-like"],
  ["rm -f out/.env", "secret-like"],
  ["rm app.log", "excluded by .gitignore or .ignore"],
  ["rm local/cache.txt", "excluded by .gitignore or .ignore"],
  ["rm big.bin", "over 16 MiB"],
  ["rm link", "a symbolic link"],
  ["rm \"$F\"", "only known when the shell runs it"],
  ["cd \"$D\" && rm notes.txt", "only known when the shell runs it"],
  ["sed -i 's/x/y/' .env", "rewrites `.env`"],
  ["sed -i -e 's/x/y/' app.log", "rewrites `app.log`"],
  ["cp .env.example .env", "replaces `.env` (`cp`)"],
  ["cp notes.txt local/cache.txt", "replaces `local/cache.txt` (`cp`)"],
  ["cp other/.env out/", "replaces `out/.env` (`cp`)"],
  ["mv .env /var/backups/", "moves `.env` out of the workspace"],
  ["mv local /var/backups/", "moves files in bulk out of the workspace (`mv local /var/backups/`)"],
  ["mv *.log /var/backups/", "moves files in bulk out of the workspace"],
  ["find . -name '*.o' -print0 | xargs -0 -I{} rm {}", "`xargs rm`"],
  ["rm -rf /tmp/../home", "`rm -rf`"],
  // Through wrappers, shells and substitutions: the same readings the destructive check takes.
  ["sudo rm -rf build", "`rm -rf`"],
  ["env FOO=1 timeout 5 rm -r build", "`rm -r`"],
  ["bash -c 'rm -rf build'", "`rm -rf`"],
  ["sh -c \"git clean -fdx\"", "`git clean -fdx`"],
  ["echo $(rm -rf build)", "`rm -rf`"],
  ["bash <<'EOF'\nrm -rf build\nEOF", "`rm -rf`"],
  ["eval 'find . -delete'", "`find -delete`"],
  ["ls && rm -rf docs", "`rm -rf`"],
  ["rm\u00a0-rf docs", "`rm -rf`"],
  // False positives kept out: recorded files, new files, appends, dry runs, the private /tmp, /dev/null.
  ["rm build/out.o", undefined],
  ["rm -f notes.txt src/main.c", undefined],
  ["rm missing.txt", undefined],
  ["rm -f .env.missing", undefined],
  ["rmdir empty", undefined],
  ["echo x > new.txt", undefined],
  ["echo x >> notes.txt", undefined],
  ["cat > src/new.c <<'EOF'\nint x;\nEOF", undefined],
  ["make > /dev/null 2>&1", undefined],
  ["bun test > /tmp/test.log 2>&1", undefined],
  ["echo x > $TMPDIR/x", undefined],
  ["rm -f /tmp/scratch.txt", undefined],
  ["rm -rf /tmp/build $TMPDIR/x", undefined],
  ["find /tmp/work -delete", undefined],
  ["mv notes.txt /var/backups/", undefined],
  ["sed -i 's/a/b/' src/main.c", undefined],
  ["sed -i.bak 's/x/y/' .env", undefined],
  ["git clean -n", undefined],
  ["git clean --dry-run -d", undefined],
  ["git checkout main", undefined],
  ["git checkout -b feature", undefined],
  ["git restore --staged src/main.c", undefined],
  ["git reset HEAD~1", undefined],
  ["git reset --soft HEAD~1", undefined],
  ["git stash", undefined],
  ["git rm --cached notes.txt", undefined],
  ["rsync -a src/ docs/", undefined],
  ["cp notes.txt docs/notes.txt", undefined],
  ["cp -n .env.example .env", undefined],
  ["mv notes.txt docs/", undefined],
  ["truncate -s 1M new.img", undefined],
  ["dd if=/dev/zero of=new.img bs=1k count=1", undefined],
  ["echo x | tee -a notes.txt", undefined],
  ["find . -name '*.o'", undefined],
  ["npm test", undefined],
  ["make", undefined],
];

test("each command in the table asks, naming the loss, or runs unasked, as the table says", () => {
  const wrong: string[] = [];
  for (const [command, expected] of TABLE) {
    const got = lossReason(command, ctx);
    if (expected === undefined ? got !== undefined : !got?.includes(expected)) wrong.push(`${JSON.stringify(command)}: expected ${expected ?? "none"}, got ${got ?? "none"}`);
  }
  const asks = TABLE.filter(([, e]) => e !== undefined).length;
  console.log(`loss table: ${TABLE.length} commands, ${asks} must ask, ${TABLE.length - asks} must not; ${wrong.length} wrong`);
  expect(wrong).toEqual([]);
});

test("a bulk delete's reason says why rewind cannot undo it; a named file's says which rule left it out", () => {
  expect(lossReason("rm -rf *", ctx)).toBe("it deletes files in bulk (`rm -rf`), and rewind cannot bring back the ignored, secret-like or large files among them");
  expect(lossReason("rm big.bin", ctx)).toBe("it deletes `big.bin`, which rewind cannot bring back (over 16 MiB: checkpoints leave it out ([checkpoints] max_file_bytes))");
});

test("with checkpoints off nothing is recorded, so deleting any existing file asks; the size cap is the configured one", () => {
  const off = { ...ctx, checkpoints: { enabled: false, max_file_bytes: 16 * 1024 * 1024 } };
  expect(lossReason("rm build/out.o", off)).toContain("checkpoints are off");
  expect(lossReason("rm missing.txt", off)).toBeUndefined();
  expect(lossReason("rm notes.txt", { ...ctx, checkpoints: { enabled: true, max_file_bytes: 3 } })).toContain("over 3 bytes");
});

test("the guard's own decision is unchanged: the loss check only keeps auto mode from answering", () => {
  for (const command of ["rm -rf *", "git clean -fdx", ": > notes.txt", "rm build/out.o"]) expect(classifyCommand(command, { ...ctx, gitConfig: () => undefined }).decision).toBe("prompt");
  expect(classifyCommand("rm -rf ~", ctx).decision).toBe("block");
});
