import { afterEach, describe, expect, test } from "bun:test";
import { deserialize } from "bun:jsc";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configCheckFile, readConfigCheck, sealConfigCheck, writeConfigCheck } from "../../src/config/check-cache";
import { type LoadedConfig, loadConfig } from "../../src/config/load";
import { loadValidated } from "../../src/config/validate";
import { configErrorOf, configHome, removeConfigHomes } from "./config-homes";

const LOAD_MODULE = join(import.meta.dir, "../../src/config/load.ts");

// Recognisable secrets: none of them may ever appear in the cache file.
const API_KEY = "sk-cachetest-APIKEY-7f3a9c";
const HEADER_VALUE = "hdr-cachetest-HEADER-51e2";
const BRAVE_KEY = "brave-cachetest-BRAVE-0d4b";
const PROXY_PASSWORD = "proxypass-cachetest-88aa";
const SECRETS = [API_KEY, HEADER_VALUE, BRAVE_KEY, PROXY_PASSWORD];

const USER_TOML = `[provider]
active = "fake"

[providers.fake]
model = "fake-model"
base_url = "http://127.0.0.1:9/v1"
api_key = "${API_KEY}"
proxy = "http://someone:${PROXY_PASSWORD}@127.0.0.1:3128"
headers = { "X-Team-Token" = "${HEADER_VALUE}", "X.Dotted" = "plain" }

[web]
search = "brave"
brave_api_key = "${BRAVE_KEY}"

[tools]
max_steps = 7
`;
const PROJECT_TOML = `[tools]\ncommand_timeout_seconds = 30\n`;

afterEach(removeConfigHomes);

/** A fake home and workspace with the given files (undefined: no file), and SCV_MODEL set. */
function setup(user?: string, project?: string) {
  const made = configHome(user, project);
  made.env.SCV_MODEL = "env-model";
  return { ...made, cacheFile: configCheckFile(made.home) };
}
const withBothFiles = () => setup(USER_TOML, PROJECT_TOML);

/** The load without any cache: the validating path, with the texts the files hold now. */
function uncached(home: string, ws: string, env: NodeJS.ProcessEnv): LoadedConfig {
  const userFile = join(home, "config.toml");
  const projectFile = join(ws, ".scv", "config.toml");
  const text = (f: string) => {
    try {
      return readFileSync(f, "utf8");
    } catch {
      return null;
    }
  };
  return loadValidated({ env, userFile, projectFile, user: text(userFile), project: text(projectFile) });
}

/** Loads in a fresh `bun` process: its result (structured-clone serialized, so Maps and undefined survive) and whether zod ran. */
function loadInFreshProcess(root: string, ws: string, env: NodeJS.ProcessEnv, bunArgs: string[] = []) {
  const script = join(root, "load-once.ts");
  writeFileSync(
    script,
    `import { serialize } from "bun:jsc";
import { loadConfig } from ${JSON.stringify(LOAD_MODULE)};
const loaded = loadConfig({ cwd: process.argv[2] });
process.stdout.write(JSON.stringify({ zod: "__zod_globalConfig" in globalThis, loaded: Buffer.from(serialize(loaded)).toString("base64") }));
`,
  );
  const run = Bun.spawnSync([process.execPath, ...bunArgs, script, ws], { cwd: root, env: { PATH: process.env.PATH, ...env }, stdout: "pipe", stderr: "pipe" });
  if (!run.success) throw new Error(`load in a fresh process failed: ${run.stderr.toString()}`);
  const out = JSON.parse(run.stdout.toString()) as { zod: boolean; loaded: string };
  return { zodRan: out.zod, loaded: deserialize(Buffer.from(out.loaded, "base64")) as LoadedConfig };
}

/** The cache file's inode: a load that misses replaces the file (write and rename), a hit leaves it. */
const inode = (file: string) => statSync(file).ino;

/** Forgets this process's last load by loading another home, so the next load of `env` reads the cache file. */
function forgetLastLoad() {
  const other = setup();
  loadConfig({ env: other.env });
}

describe("config check cache across processes", () => {
  test("a fresh process's hit equals the uncached load (secrets, headers, project file, SCV_MODEL) and never runs zod", () => {
    const { root, home, ws, env, cacheFile } = withBothFiles();
    const truth = uncached(home, ws, env);
    expect(truth.config.providers.fake!.api_key).toBe(API_KEY);
    expect(truth.config.providers.fake!.model).toBe("env-model");

    const first = loadInFreshProcess(root, ws, env);
    expect(first.zodRan).toBe(true); // no cache yet: validated
    expect(first.loaded).toStrictEqual(truth);
    const written = inode(cacheFile);

    const second = loadInFreshProcess(root, ws, env);
    expect(second.zodRan).toBe(false); // the hit never loads the schemas
    expect(second.loaded).toStrictEqual(truth);
    expect(second.loaded.sources).toBeInstanceOf(Map);
    expect(second.loaded.projectFile).toBe(join(ws, ".scv", "config.toml"));
    expect(inode(cacheFile)).toBe(written);
  });

  test("a different SCV version misses and rewrites the cache", () => {
    const { root, ws, env, cacheFile } = withBothFiles();
    loadInFreshProcess(root, ws, env);
    const written = inode(cacheFile);
    const other = loadInFreshProcess(root, ws, env, ["--define", `SCV_VERSION=${JSON.stringify("99.0.0-cachetest")}`]);
    expect(other.zodRan).toBe(true);
    expect(inode(cacheFile)).not.toBe(written);
    // And the next run of the usual version misses again: the file now holds the other version's result.
    expect(loadInFreshProcess(root, ws, env).zodRan).toBe(true);
  });

  test("a workspace without a project file hits what another such workspace stored", () => {
    const { root, home, ws, env, cacheFile } = setup(USER_TOML);
    loadInFreshProcess(root, ws, env);
    const written = inode(cacheFile);
    const elsewhere = join(root, "another-workspace");
    mkdirSync(elsewhere);
    const hit = loadInFreshProcess(root, elsewhere, env);
    expect(hit.zodRan).toBe(false);
    expect(hit.loaded).toStrictEqual(uncached(home, elsewhere, env));
    expect(inode(cacheFile)).toBe(written);
    // A workspace that has one is another load: validated, and its file named.
    mkdirSync(join(elsewhere, ".scv"));
    writeFileSync(join(elsewhere, ".scv", "config.toml"), PROJECT_TOML);
    const own = loadInFreshProcess(root, elsewhere, env);
    expect(own.zodRan).toBe(true);
    expect(own.loaded.projectFile).toBe(join(elsewhere, ".scv", "config.toml"));
    expect(own.loaded.config.tools.command_timeout_seconds).toBe(30);
  });

  test("without a project file, projectFile is undefined on a hit too", () => {
    const { root, home, ws, env } = setup(USER_TOML);
    loadInFreshProcess(root, ws, env);
    const hit = loadInFreshProcess(root, ws, env);
    expect(hit.zodRan).toBe(false);
    expect(hit.loaded).toStrictEqual(uncached(home, ws, env));
    expect("projectFile" in hit.loaded && hit.loaded.projectFile === undefined).toBe(true);
  });
});

describe("the cache file", () => {
  test("holds no secret value, and is 0600 in a 0700 state directory", () => {
    const { home, ws, env, cacheFile } = withBothFiles();
    loadConfig({ cwd: ws, env });
    const text = readFileSync(cacheFile, "utf8");
    expect(text).toContain(`"model":"env-model"`); // it is the loaded config
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).toContain("X-Team-Token"); // header names are not secret, their values are
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "state")).mode & 0o777).toBe(0o700);
  });

  test("an in-process hit still gives each caller its own copy", () => {
    const { ws, env } = withBothFiles();
    loadConfig({ cwd: ws, env });
    forgetLastLoad();
    const a = loadConfig({ cwd: ws, env });
    a.config.tools.max_steps = 1000;
    a.sources.clear();
    const b = loadConfig({ cwd: ws, env });
    expect(b.config.tools.max_steps).toBe(7);
    expect(b.sources.size).toBeGreaterThan(0);
  });
});

describe("anything that changes the inputs misses", () => {
  const cases: [string, (s: ReturnType<typeof withBothFiles>) => void][] = [
    ["editing the user file", (s) => writeFileSync(join(s.home, "config.toml"), USER_TOML.replace("max_steps = 7", "max_steps = 8"))],
    ["editing the project file", (s) => writeFileSync(join(s.ws, ".scv", "config.toml"), "[tools]\ncommand_timeout_seconds = 31\n")],
    ["removing the project file", (s) => rmSync(join(s.ws, ".scv", "config.toml"))],
    ["changing SCV_MODEL", (s) => (s.env.SCV_MODEL = "other-model")],
    ["unsetting SCV_MODEL", (s) => delete s.env.SCV_MODEL],
    ["setting SCV_PROVIDER", (s) => (s.env.SCV_PROVIDER = "fake")],
  ];
  for (const [what, change] of cases) {
    test(what, () => {
      const s = withBothFiles();
      loadConfig({ cwd: s.ws, env: s.env });
      const written = inode(s.cacheFile);
      change(s);
      const loaded = loadConfig({ cwd: s.ws, env: s.env });
      expect(loaded).toStrictEqual(uncached(s.home, s.ws, s.env));
      expect(inode(s.cacheFile)).not.toBe(written); // missed, validated and stored the new result
    });
  }
});

describe("a damaged or edited cache is never trusted", () => {
  const damages: [string, (text: string) => string][] = [
    ["truncated", (t) => t.slice(0, Math.floor(t.length / 2))],
    ["not JSON", () => "garbage\n"],
    ["empty", () => ""],
    ["a value edited by hand", (t) => t.replace(`"max_steps":7`, `"max_steps":99`)],
    ["a secret filled in by hand", (t) => t.replace(`"api_key":null`, `"api_key":"sk-planted"`)],
    ["its sum edited", (t) => t.replace(/"sum":"[0-9a-f]/, (m) => `${m.slice(0, -1)}${m.endsWith("0") ? "1" : "0"}`)],
  ];
  for (const [what, damage] of damages) {
    test(what, () => {
      const { home, ws, env, cacheFile } = withBothFiles();
      loadConfig({ cwd: ws, env });
      const good = readFileSync(cacheFile, "utf8");
      const damaged = damage(good);
      expect(damaged).not.toBe(good);
      writeFileSync(cacheFile, damaged);
      forgetLastLoad();
      const loaded = loadConfig({ cwd: ws, env });
      expect(loaded).toStrictEqual(uncached(home, ws, env));
      expect(loaded.config.tools.max_steps).toBe(7);
      expect(loaded.config.providers.fake!.api_key).toBe(API_KEY);
      expect(readFileSync(cacheFile, "utf8")).toBe(good); // rewritten from the files
    });
  }

  test("a well-sealed file of the wrong shape is a miss", () => {
    const { home, ws, env, cacheFile } = withBothFiles();
    const texts = { user: USER_TOML, project: PROJECT_TOML };
    const loaded = uncached(home, ws, env);
    writeConfigCheck(home, "the-key", loaded, texts);
    expect(readConfigCheck(home, "the-key", texts)).toStrictEqual(loaded);
    expect(readConfigCheck(home, "another-key", texts)).toBeUndefined();
    const stored = JSON.parse(readFileSync(cacheFile, "utf8")).loaded;
    const wrong = [
      { ...stored, sources: "none" },
      { ...stored, sources: [["a"]] },
      { ...stored, secrets: [[]] },
      { ...stored, secrets: [["tools", "max_steps"]] }, // not a secret in the files
      { ...stored, userFile: 3 },
      { ...stored, config: null },
      [],
    ];
    for (const shape of wrong) {
      writeFileSync(cacheFile, sealConfigCheck("the-key", JSON.stringify(shape)));
      expect(readConfigCheck(home, "the-key", texts)).toBeUndefined();
    }
    // The secrets come from the files as they are, never from the cache: without the user file's text, no hit.
    writeFileSync(cacheFile, sealConfigCheck("the-key", JSON.stringify(stored)));
    expect(readConfigCheck(home, "the-key", texts)).toStrictEqual(loaded);
    expect(readConfigCheck(home, "the-key", { user: null, project: PROJECT_TOML })).toBeUndefined();
  });
});

describe("an invalid config", () => {
  const INVALID = USER_TOML.replace("max_steps = 7", "max_steps = 0");

  test("fails with the same error with or without a cache file, and writes nothing", () => {
    const fresh = setup(INVALID, PROJECT_TOML);
    const before = configErrorOf(() => loadConfig({ cwd: fresh.ws, env: fresh.env }));
    expect(before).toContain("tools.max_steps");
    expect(() => statSync(fresh.cacheFile)).toThrow(); // a failed load writes nothing

    const cached = setup(USER_TOML, PROJECT_TOML);
    loadConfig({ cwd: cached.ws, env: cached.env });
    const good = readFileSync(cached.cacheFile, "utf8");
    writeFileSync(join(cached.home, "config.toml"), INVALID);
    const after = configErrorOf(() => loadConfig({ cwd: cached.ws, env: cached.env }));
    expect(after.replaceAll(cached.root, "<root>")).toBe(before.replaceAll(fresh.root, "<root>"));
    expect(readFileSync(cached.cacheFile, "utf8")).toBe(good); // untouched, and it never matches the invalid text
    forgetLastLoad();
    expect(configErrorOf(() => loadConfig({ cwd: cached.ws, env: cached.env })).replaceAll(cached.root, "<root>")).toBe(before.replaceAll(fresh.root, "<root>"));
  });
});

describe("where the state directory cannot be written", () => {
  test("a file in the state directory's place: loading works, with no cache", () => {
    const { home, ws, env } = withBothFiles();
    writeFileSync(join(home, "state"), "not a directory");
    expect(loadConfig({ cwd: ws, env })).toStrictEqual(uncached(home, ws, env));
    forgetLastLoad();
    expect(loadConfig({ cwd: ws, env })).toStrictEqual(uncached(home, ws, env));
  });

  test("a read-only state directory: loading works, with no cache", () => {
    const { home, ws, env, cacheFile } = withBothFiles();
    mkdirSync(join(home, "state"), { mode: 0o500 });
    chmodSync(join(home, "state"), 0o500);
    try {
      expect(loadConfig({ cwd: ws, env })).toStrictEqual(uncached(home, ws, env));
      // root may write anyway; anyone else gets no cache file
      if (process.getuid?.() !== 0) expect(() => statSync(cacheFile)).toThrow();
    } finally {
      chmodSync(join(home, "state"), 0o700);
    }
  });

  test("a load never creates SCV_HOME", () => {
    const { root, ws } = setup();
    const env = { SCV_HOME: join(root, "no-such-home"), HOME: root };
    expect(loadConfig({ cwd: ws, env }).config.provider.active).toBe("openai");
    expect(() => statSync(join(root, "no-such-home"))).toThrow();
  });
});
