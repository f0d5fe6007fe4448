import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { assertOpenedInside, isInside, isSecretLikeChild, isSecretLikePath, resolveInWorkspace, WorkspacePath } from "../../src/fs/workspace-paths";
import { makeTempWorkspace } from "../fake/scope";

/** A workspace with an outside sibling directory and the usual symlink shapes. */
function fixture() {
  const top = makeTempWorkspace("scv-paths-");
  const ws = path.join(top, "ws");
  const outside = path.join(top, "outside");
  fs.mkdirSync(path.join(ws, "sub", "deep"), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(ws, "sub", "file.txt"), "inside");
  fs.writeFileSync(path.join(outside, "secret.txt"), "outside");
  fs.symlinkSync(outside, path.join(ws, "escape")); // parent-directory symlink leading out
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "final-out")); // final symlink leading out
  fs.symlinkSync("sub/file.txt", path.join(ws, "final-in")); // final symlink staying in
  fs.symlinkSync("sub", path.join(ws, "dir-in"));
  fs.symlinkSync("nowhere/at/all", path.join(ws, "dangling"));
  fs.symlinkSync("loop-b", path.join(ws, "loop-a"));
  fs.symlinkSync("loop-a", path.join(ws, "loop-b"));
  return { ws, outside };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("resolveInWorkspace", () => {
  test("an existing relative path resolves to its real absolute path", () => {
    const { ws } = fixture();
    expect(resolveInWorkspace(ws, "sub/file.txt")).toBe(path.join(ws, "sub", "file.txt"));
    expect(resolveInWorkspace(ws, "./sub//deep/../file.txt")).toBe(path.join(ws, "sub", "file.txt"));
    expect(resolveInWorkspace(ws, ".")).toBe(ws);
  });

  test("a symlink that stays inside resolves to its target", () => {
    const { ws } = fixture();
    expect(resolveInWorkspace(ws, "final-in")).toBe(path.join(ws, "sub", "file.txt"));
    expect(resolveInWorkspace(ws, "dir-in/file.txt")).toBe(path.join(ws, "sub", "file.txt"));
    expect(resolveInWorkspace(ws, "final-in", { forWrite: true })).toBe(path.join(ws, "sub", "file.txt"));
  });

  test("a workspace given through a symlink still contains its files", () => {
    const { ws } = fixture();
    const alias = `${ws}-alias`;
    fs.symlinkSync(ws, alias);
    expect(resolveInWorkspace(alias, "sub/file.txt")).toBe(path.join(ws, "sub", "file.txt"));
  });

  test("missing paths: an error for reading, allowed (with missing parents) for writing", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, "sub/none.txt"))).toBe('path "sub/none.txt" does not exist in the workspace');
    expect(resolveInWorkspace(ws, "new/dir/file.txt", { forWrite: true })).toBe(path.join(ws, "new", "dir", "file.txt"));
  });

  test(".. escapes are refused with the path named", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, "../x"))).toBe('path "../x" is outside the workspace');
    expect(refusal(() => resolveInWorkspace(ws, "sub/../../outside/secret.txt"))).toContain("is outside the workspace");
    expect(refusal(() => resolveInWorkspace(ws, "..", { forWrite: true }))).toContain("is outside the workspace");
    // A name that merely starts with two dots is an ordinary file.
    fs.writeFileSync(path.join(ws, "..notes"), "x");
    expect(resolveInWorkspace(ws, "..notes")).toBe(path.join(ws, "..notes"));
  });

  test("absolute paths are refused, with the relative form when it is inside", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, "/etc/passwd"))).toBe('path "/etc/passwd" is absolute; give a path relative to the workspace');
    expect(refusal(() => resolveInWorkspace(ws, path.join(ws, "sub/file.txt")))).toContain('use "sub/file.txt"');
  });

  test("a symlinked parent directory leading outside is refused for existing and new files", () => {
    const { ws } = fixture();
    for (const [p, forWrite] of [["escape/secret.txt", false], ["escape/secret.txt", true], ["escape/newfile", true], ["escape", false]] as const) {
      expect(refusal(() => resolveInWorkspace(ws, p, { forWrite }))).toContain(`path "${p}" is outside the workspace`);
    }
  });

  test("a final symlink leading outside is refused for read and write", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, "final-out"))).toContain("outside the workspace");
    expect(refusal(() => resolveInWorkspace(ws, "final-out", { forWrite: true }))).toContain("outside the workspace");
  });

  test("dangling and looping symlinks are refused", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, "dangling"))).toContain("symbolic link whose target does not exist");
    expect(refusal(() => resolveInWorkspace(ws, "dangling", { forWrite: true }))).toContain("symbolic link whose target does not exist");
    expect(refusal(() => resolveInWorkspace(ws, "dangling/child", { forWrite: true }))).toContain('through "dangling"');
    expect(refusal(() => resolveInWorkspace(ws, "loop-a"))).toContain("loop");
  });

  test("a dangling symlink pointing outside cannot be used to create a file there", () => {
    const { ws, outside } = fixture();
    fs.symlinkSync(path.join(outside, "planted.txt"), path.join(ws, "plant"));
    expect(refusal(() => resolveInWorkspace(ws, "plant", { forWrite: true }))).toContain("refused");
    expect(fs.existsSync(path.join(outside, "planted.txt"))).toBe(false);
  });

  test("a file used as a directory is named", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, "sub/file.txt/x", { forWrite: true }))).toBe('path "sub/file.txt/x": "sub/file.txt" is not a directory');
  });

  test("writes refuse the workspace root and directory-shaped paths", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, ".", { forWrite: true }))).toContain("is the workspace root");
    expect(refusal(() => resolveInWorkspace(ws, "sub/new/", { forWrite: true }))).toContain('ends with "/"');
  });

  test("empty paths and NUL bytes are refused", () => {
    const { ws } = fixture();
    expect(refusal(() => resolveInWorkspace(ws, ""))).toContain("path is empty");
    expect(refusal(() => resolveInWorkspace(ws, "a\0b"))).toContain("NUL byte");
    expect(WorkspacePath.safeParse("a\0b").success).toBe(false);
    expect(WorkspacePath.safeParse("").success).toBe(false);
    expect(WorkspacePath.safeParse("\ud800x").success).toBe(false);
    expect(WorkspacePath.safeParse("src/ünï.ts").success).toBe(true);
  });
});

describe("assertOpenedInside", () => {
  test("accepts a descriptor inside and refuses one outside", () => {
    const { ws, outside } = fixture();
    const inside = fs.openSync(path.join(ws, "sub"), "r");
    const out = fs.openSync(outside, "r");
    try {
      expect(() => assertOpenedInside(inside, ws, "sub")).not.toThrow();
      expect(() => assertOpenedInside(out, ws, "sub")).toThrow("outside the workspace");
    } finally {
      fs.closeSync(inside);
      fs.closeSync(out);
    }
  });
});

test("isInside compares whole components", () => {
  expect(isInside("/a/b", "/a/b")).toBe(true);
  expect(isInside("/a/b", "/a/b/c")).toBe(true);
  expect(isInside("/a/b", "/a/bc")).toBe(false);
  expect(isInside("/a/b", "/a")).toBe(false);
  expect(isInside("/a/b", "/a/b/..c")).toBe(true);
});

describe("isSecretLikePath", () => {
  const secret = [
    ".env", "app/.env", ".env.local", "config/prod.env", ".ENV",
    "id_ed25519", "home/.ssh/config", ".ssh/known_hosts", "keys/id_rsa", "id_ecdsa_sk",
    "certs/server.pem", "tls/server.key", "store.p12", "cert.pfx", "vault.kdbx",
    "aws_credentials.json", ".git-credentials", "config/Credentials", "my_private_key.txt",
    ".aws/config", ".gnupg/pubring.kbx", ".kube/config", ".docker/config.json", ".azure/x",
    ".netrc", ".npmrc", ".pypirc", ".cargo/credentials.toml", ".cargo/credentials",
    ".config/gh/hosts.yml", ".config/gcloud/x", ".config/hub", ".password-store/a.gpg",
    ".local/share/keyrings/login.keyring", ".codex/auth.json", ".claude/settings.json", ".claude.json",
    ".grok/x", ".scv/config.toml", ".mozilla/firefox/profile", ".config/google-chrome/Default/Cookies",
    "/etc/shadow", "/etc/ssh/ssh_host_ed25519_key", "/etc/sudoers", "/etc/sudoers.d/x", "/root/notes", "/proc/1/environ",
    "/etc/../etc/shadow",
  ];
  const ordinary = [
    "src/main.ts", "README.md", ".envrc", "environment.ts", "env/config.ts", "docs/keys.md", "monkey",
    "keyboard.key.ts", "id_ed25519.pub", "src/ssh.ts", ".config/other/x", "etc/shadow.txt", "/etc/passwd",
    "proc/readme", "pem.ts", "",
  ];
  for (const p of secret) test(`${p} is secret-like`, () => expect(isSecretLikePath(p)).toBe(true));
  for (const p of ordinary) test(`${JSON.stringify(p)} is ordinary`, () => expect(isSecretLikePath(p)).toBe(false));
});

describe("isSecretLikeChild", () => {
  test("gives isSecretLikePath's answer for each component of a walk whose parents passed", () => {
    const paths = [
      "src/main.ts", ".env", "app/.env.local", "keys/server.pem", ".ssh/id_rsa", "home/.config/gh/hosts.yml", ".config/gcloud",
      ".config/other/x", ".local/share/keyrings/login", ".local/share/other", ".cargo/credentials.toml", "docs/CREDENTIALS.md",
      "a/b/c/private_key.txt", "a/.Aws/config", "notes/id_ed25519.pub", "x/y/z",
    ];
    for (const p of paths) {
      const parts = p.split("/");
      let verdict = false;
      for (let i = 0; i < parts.length && !verdict; i++) verdict = isSecretLikeChild(parts.slice(0, i).map((c) => c.toLowerCase()), parts[i]!);
      expect([p, verdict]).toEqual([p, isSecretLikePath(p)]);
    }
  });
});
