// The `bash` tool: `/bin/bash -c <command>` with the session's login environment (bash-login.ts) in the workspace
// through the process runner, with a deadline, cancellation, cleanup of everything the command started, and
// bounded combined stdout/stderr.
import { DEFAULT_COMMAND_TIMEOUT_SECONDS, DEFAULT_MAX_TIMEOUT_SECONDS } from "../config/schema";
import { zod } from "../lazy-schema";
import { runProcess, type CapturedStream, type RunResult } from "../process";
import { explainDenial, openSessionNetwork, readySandbox, runSandboxed, sandboxSettings, type EgressEntry } from "../sandbox";
import { bashGuard } from "./bash-guard";
import { placement } from "./bash-sandbox";
import { networkGrants } from "./bash-network";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { throttle } from "../throttle";
import { userHome } from "../user-home";
import { bashEnvironment, bindingName, bindSecrets, describeBindings } from "./bash-env";
import { LoginShell, type ShellCommand } from "./bash-login";
import { defineTool, parametersByTimeouts, type Tool } from "./tool";
import { ellipsize } from "../text/cut";

/** The longest progress line; a longer one is cut with an ellipsis. */
const PROGRESS_MAX_CHARS = 200;
/** Room in the output limit for the header lines above the captured output. */
const HEADER_RESERVE_BYTES = 512;

function bashArgs(defaultTimeout: number, maxTimeout: number) {
  const z = zod();
  return z.strictObject({
    command: z
      .string({ error: "must be a string holding the shell command" })
      .refine((s) => s.trim().length > 0, "must not be empty")
      .refine((s) => !s.includes("\0"), "must not contain NUL bytes")
      .describe("Shell command"),
    timeout_seconds: z
      .number({ error: "must be a number of seconds" })
      .int("must be a whole number of seconds")
      .positive("must be at least 1")
      .max(maxTimeout, `must be at most ${maxTimeout} seconds (the tools.max_timeout_seconds ceiling)`)
      .optional()
      .describe(`Default ${defaultTimeout}, at most ${maxTimeout}`),
    secrets: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a binding name"))
      .max(16)
      .optional()
      .describe("Secret bindings to set (redacted from the output)"),
    background: z
      .boolean()
      .optional()
      .describe("Run as a background job (a server, a watcher)"),
    keep: z.boolean().optional().describe("With background: outlive the session"),
    unsandboxed: z
      .string({ error: "must be a string saying why" })
      .refine((s) => s.trim().length > 0, "must say why the command needs to run outside the sandbox")
      .refine((s) => s.length <= 500, "must be at most 500 characters")
      .optional()
      .describe("Why it must run unsandboxed; asks a person"),
  });
}
const BASH_ARGS = parametersByTimeouts(bashArgs, [DEFAULT_COMMAND_TIMEOUT_SECONDS, DEFAULT_MAX_TIMEOUT_SECONDS]);
export const DefaultBashArgs = BASH_ARGS.prebuilt;

export function createBashTool(scope: SessionScope): Tool {
  const { command_timeout_seconds: defaultTimeout, max_timeout_seconds: maxTimeout } = scope.config.tools;
  const BashArgs = BASH_ARGS.for(defaultTimeout, maxTimeout);
  const { bash_env: extraEnv, secret_bindings: bindings } = scope.config.tools;
  const home = scope.env.HOME || userHome(scope.env);
  const settings = sandboxSettings(scope.config.sandbox, { workspace: scope.workspace, home, scvHome: scope.scvHome, env: scope.env });
  // One network namespace for the session's sandboxed commands: a server one call starts is reached by the next.
  const sandbox = settings && { ...settings, session: scope.sessionId, sessionNetwork: openSessionNetwork(scope.scvHome) };
  if (sandbox) scope.onClose(() => sandbox.sessionNetwork.close());
  const place = placement(sandbox, home);
  const grants = networkGrants(scope.scvHome);
  const sandboxFor = place.inside;
  const login = new LoginShell({ home, cacheDir: cacheHome(scope.env, home), exclude: bindings.flatMap((b) => [bindingName(b), b.source.slice("env:".length)]) });
  scope.onClose(() => login.close());

  /** The shell for one call: a plain bash with the login snapshot (captured in the call's placement). */
  function shellFor(command: string, env: Record<string, string>, inside: boolean): Promise<ShellCommand> {
    // A sandbox that hides the snapshot folder (the user hid their cache, or it is under /tmp, which the sandbox
    // replaces with the command's own) gets the login shell itself, as before.
    const hidden = (dir: string) => dir === login.folder || login.folder.startsWith(`${dir}/`);
    if (inside && (hidden("/tmp") || sandbox!.hidden.some(hidden))) return Promise.resolve({ argv: ["/bin/bash", "-lc", command], env });
    return login.command(command, {
      cwd: scope.workspace,
      env,
      placement: inside ? "sandbox" : "host",
      // A sandbox that could not start the capture is a failed capture (its reason said once), not a result.
      capture: (run) =>
        inside
          ? runSandboxed(run, sandbox!).then((r) => {
              if ("why" in r) throw new Error(r.why);
              return r;
            })
          : runProcess(run),
    });
  }

  const guard = bashGuard(scope, home, place);

  return defineTool({
    name: "bash",
    kind: "execute",
    description:
      `Run a command with /bin/bash (user's login env) in the workspace${sandbox ? `, sandboxed (writes: ${sandbox.mode === "workspace-write" ? "workspace except .git/.scv (git commands: also .git's data), " : ""}$TMPDIR; ${sandbox.network ? "" : sandbox.egress ? "network only through the proxy in HTTP(S)_PROXY to the hosts the user allows; " : "no network; "}secrets hidden)${sandbox.autoRun ? "; runs unasked" : ""}` : " (not sandboxed); read-only ones run unasked"}. ` +
      `Known destructive ones are refused. No keys in its environment${bindings.length ? `; secret bindings you may request by name: ${bindings.map(bindingName).join(", ")}` : ""}; empty stdin. ` +
      `Returns exit status and output (long output keeps start and end); processes it starts stop with it.`,
    parameters: BashArgs,
    risk: "process",
    summary: (args) => {
      const lines = [`$ ${args.command}`, `cwd: ${scope.workspace}`, args.background ? `in the background (a job; ${args.keep ? "kept running after this session closes, until scv agents kill or SCV stops" : "stopped when this session closes"})` : `timeout: ${args.timeout_seconds ?? defaultTimeout}s`, place.howItRuns(args)];
      if (args.secrets?.length) lines.push(`secrets: ${describeBindings(bindings, args.secrets).join(", ")}`);
      return lines.join("\n");
    },
    guard,
    label: (args) => (args.background ? `$ ${args.command} &` : `$ ${args.command}`),
    execute: async (args, ctx) => {
      const secrets = args.secrets?.length ? bindSecrets(bindings, args.secrets, scope.env) : undefined;
      // The earliest binding expiry tightens the deadline: the command does not outlive its secrets.
      const timeoutSeconds = Math.min(args.timeout_seconds ?? defaultTimeout, secrets?.expiresInSeconds ?? Infinity);
      // Progress lines could show part of a bound value cut at a chunk's edge: a call with secrets sends none.
      if (args.background && scope.config.tools.max_background_commands > 0) {
        const { startBackgroundCommand } = await import("./bash-background");
        const inside = sandboxFor(args);
        const shell = await shellFor(args.command, bashEnvironment(scope.env, extraEnv), !!inside);
        if (inside) await readySandbox(inside.settings);
        return startBackgroundCommand(scope, {
          command: args.command,
          argv: shell.argv,
          ...(inside ? { sandbox: inside.settings } : {}),
          env: { ...shell.env, ...secrets?.env },
          timeoutSeconds: Math.min(args.timeout_seconds ?? maxTimeout, secrets?.expiresInSeconds ?? Infinity),
          keep: !!args.keep,
          ...(secrets ? { redact: secrets.redact } : {}),
          format: (r) => formatResult(r, args.timeout_seconds ?? maxTimeout),
          progress: (emit) => lastLineProgress(secrets ? () => {} : emit),
        });
      }
      const progress = lastLineProgress(secrets ? () => {} : ctx.progress);
      try {
        const inside = sandboxFor(args);
        const shell = await shellFor(args.command, bashEnvironment(scope.env, extraEnv), !!inside);
        const run = {
          argv: shell.argv,
          cwd: scope.workspace,
          env: { ...shell.env, ...secrets?.env },
          stdin: "null" as const,
          signal: ctx.signal,
          timeoutMs: timeoutSeconds * 1000,
          captureBytes: Math.max(256, ctx.outputLimitBytes - HEADER_RESERVE_BYTES),
          combined: true,
          onStdout: progress.push,
        };
        let result: RunResult & { egressRefused?: EgressEntry[] };
        try {
          const ran = inside ? await runSandboxed(run, grants.forCall(args.command, inside.settings)) : await runProcess(run);
          // A LaunchFailed (it has `why`): the sandbox refused to start the command, which never ran.
          if ("why" in ran) throw new Error(`${ran.why} (the sandbox could not be applied; see scv doctor)`);
          result = ran;
        } catch (e) {
          throw new ToolError(e instanceof Error ? e.message : String(e));
        }
        const out = (result.combined ?? result.stdout).text;
        if (shell.note) result = { ...result, notes: [...(result.notes ?? []), shell.note] };
        const plain = formatResult(result, timeoutSeconds);
        const note = inside && !plain.ok ? explainDenial(out, inside.settings) : undefined;
        // Hosts the proxy refused: a person may allow them (once, or always) on a card.
        const granted = inside && result.egressRefused?.length ? await grants.afterRun(ctx, args.command, result.egressRefused, inside.settings) : [];
        const extra = [...(note ? [note] : []), ...granted];
        const formatted = {
          ...plain,
          ...(extra.length ? { output: `${plain.output}\n${extra.join("\n")}` } : {}),
          event: { ...plain.event, sandbox: inside ? inside.settings.mode : "none" },
        };
        return secrets ? { ...formatted, output: secrets.redact(formatted.output) } : formatted;
      } finally {
        progress.stop();
      }
    },
  });
}

/** The user's cache folder: XDG_CACHE_HOME when absolute, else ~/.cache. */
function cacheHome(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : `${home}/.cache`;
}

export function formatResult(r: RunResult, timeoutSeconds: number) {
  const out: CapturedStream = r.combined ?? r.stdout;
  const status = r.timedOut
    ? `timeout after ${timeoutSeconds}s (killed)`
    : r.cancelled
      ? "cancelled"
      : r.signal
        ? `signal ${r.signal}`
        : `exit ${r.exitCode}`;
  const lines = [status];
  if (out.truncated) {
    lines.push(
      `[output: ${out.totalBytes} bytes, ${out.totalLines} lines; truncated: showing first ${out.headBytes} and last ${out.tailBytes} bytes]`,
    );
  } else if (out.totalBytes === 0) {
    lines.push("[no output]");
  }
  if (r.cleanedUp) lines.push(`[stopped ${r.cleanedUp} background process${r.cleanedUp === 1 ? "" : "es"} still running after the command]`);
  if (r.drained === false) lines.push("[a background process kept the output open after the command; stopped reading]");
  for (const note of r.notes ?? []) lines.push(`[${note}]`);
  const text = out.totalBytes ? `${lines.join("\n")}\n${out.text}` : lines.join("\n");
  return {
    ok: !r.timedOut && !r.cancelled && r.exitCode === 0,
    output: text,
    display: `${status}, ${(r.durationMs / 1000).toFixed(1)} s`,
    event: {
      exit_code: r.exitCode,
      signal: r.signal,
      timed_out: r.timedOut,
      cancelled: r.cancelled,
      duration_ms: r.durationMs,
      output_bytes: out.totalBytes,
      output_lines: out.totalLines,
      truncated: out.truncated,
    },
  };
}

/** Reports the last line of output through the progress throttle; keeps only the last 1 KiB seen. */
function lastLineProgress(emit: (line: string) => void) {
  let recent = new Uint8Array(0);
  let lastSent = "";
  const progress = throttle(() => {
    const line = lastLine(recent);
    if (!line || line === lastSent) return;
    lastSent = line;
    try {
      emit(line);
    } catch {
      // progress is best effort
    }
  });
  return {
    push(chunk: Uint8Array) {
      const keep = 1024;
      if (chunk.length >= keep) recent = chunk.slice(chunk.length - keep);
      else {
        const merged = new Uint8Array(Math.min(keep, recent.length + chunk.length));
        const fromOld = merged.length - chunk.length;
        merged.set(recent.subarray(recent.length - fromOld));
        merged.set(chunk, fromOld);
        recent = merged;
      }
      progress.poke();
    },
    stop: () => progress.stop(),
  };
}

/** The last non-blank line (after a carriage return, for progress bars), without escape sequences. */
export function lastLine(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes).replace(/^\uFFFD+/, "");
  const clean = text.replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, "").replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "");
  const lines = clean.split(/\r?\n|\r/).map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line) return ellipsize(line, PROGRESS_MAX_CHARS);
  }
  return "";
}
