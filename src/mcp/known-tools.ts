// What SCV knows of each MCP server without starting it: the tool list it last gave, keyed by everything that
// defines the server (command, arguments, configured directory and variable names, or URL and header names)
// and stamped with the name and version the server reported. A session offers a known list at once and starts
// the server at the first call; a list that is unknown, older than KNOWN_FOR_MS, or that the server contradicts
// when it connects (another name or version, another list, a list_changed notification) is listed again.
// Also here: the notes already said about a server (a variable not set, a program that fails), so a note is
// said once a day rather than on every run. $SCV_HOME/state/mcp-tools.json, private; never holds a value of a
// variable or header, only names.
import { join } from "node:path";
import { sha256Hex } from "../digest";
import { ensurePrivateDir, writePrivateFileAtomic } from "../fs/private-file";
import { KiB, readBoundedText } from "../fs/safe-read";
import type { McpServerConfig } from "../config/schema";
import { stateDir } from "../process/delegation-records";
import type { McpToolInfo } from "./connection";

/** A list older than this is listed again (the server starts at the turn's start) before it is offered. */
export const KNOWN_FOR_MS = 7 * 86_400_000;
/** A note about a server (not set, not started) is said again after this long. */
export const NOTE_AGAIN_MS = 86_400_000;
const MAX_SERVERS = 200;
const MAX_FILE_BYTES = 8 * 1024 * KiB;

export interface KnownServer {
  /** The name and version the server reported when it was listed. */
  server: { name: string; version: string };
  tools: McpToolInfo[];
  listed_at: number;
}

interface Entry {
  known?: KnownServer;
  note?: { text: string; at: number };
  used_at: number;
}

const fileOf = (scvHome: string) => join(stateDir(scvHome), "mcp-tools.json");

/** Everything that defines a server, as a key: a change to any of it makes its list unknown. */
export function definitionKey(server: McpServerConfig): string {
  const env = Array.isArray(server.env) ? [...server.env] : Object.keys(server.env);
  const shape =
    server.url !== undefined
      ? { url: server.url, headers: Object.keys(server.headers).sort(), bearer: server.bearer_token_env ?? null }
      : { command: server.command, args: server.args, cwd: server.cwd ?? null, env: env.sort() };
  return sha256Hex(JSON.stringify(shape));
}

function read(scvHome: string): Record<string, Entry> {
  try {
    const data = JSON.parse(readBoundedText(fileOf(scvHome), { what: "known MCP tools", maxBytes: MAX_FILE_BYTES, followSymlink: false })) as { servers?: unknown };
    return data.servers && typeof data.servers === "object" && !Array.isArray(data.servers) ? (data.servers as Record<string, Entry>) : {};
  } catch {
    return {}; // none yet, or unreadable: every list is unknown
  }
}

function write(scvHome: string, servers: Record<string, Entry>): void {
  try {
    const kept = Object.entries(servers)
      .sort((a, b) => b[1].used_at - a[1].used_at)
      .slice(0, MAX_SERVERS);
    ensurePrivateDir(stateDir(scvHome));
    writePrivateFileAtomic(fileOf(scvHome), `${JSON.stringify({ servers: Object.fromEntries(kept) })}\n`);
  } catch {
    // best effort: the list is unknown next time, and the server starts to list it
  }
}

/** The store of one SCV home, read once (a session reads it at its first turn). */
export class KnownTools {
  private servers: Record<string, Entry> | undefined;
  constructor(private readonly scvHome: string) {}

  private all(): Record<string, Entry> {
    return (this.servers ??= read(this.scvHome));
  }

  /** The server's list when it is known and fresh enough to offer without starting the server. */
  fresh(key: string, now = Date.now()): KnownServer | undefined {
    const known = this.all()[key]?.known;
    if (!known || !Array.isArray(known.tools) || typeof known.listed_at !== "number" || now - known.listed_at > KNOWN_FOR_MS) return undefined;
    return known;
  }

  /** Keeps what a connected server listed (and forgets any note about it: it works). */
  keep(key: string, known: KnownServer): void {
    const servers = read(this.scvHome); // another process may have kept others meanwhile
    servers[key] = { known, used_at: Date.now() };
    this.servers = servers;
    write(this.scvHome, servers);
  }

  /** Whether `text` should be said about the server now: not when the same note was said within NOTE_AGAIN_MS. */
  sayOnce(key: string, text: string, now = Date.now()): boolean {
    const said = this.all()[key]?.note;
    if (said && said.text === text && now - said.at < NOTE_AGAIN_MS) return false;
    const servers = read(this.scvHome);
    servers[key] = { ...servers[key], note: { text, at: now }, used_at: now };
    this.servers = servers;
    write(this.scvHome, servers);
    return true;
  }
}

/** Whether a connected server contradicts what was known: another reported name or version, or another list. */
export function contradicts(known: KnownServer, server: { name: string; version: string }, tools?: McpToolInfo[]): boolean {
  if (known.server.name !== server.name || known.server.version !== server.version) return true;
  return tools !== undefined && JSON.stringify(tools) !== JSON.stringify(known.tools);
}
