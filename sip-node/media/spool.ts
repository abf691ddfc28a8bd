// The node's media spool: a private directory (0700, files 0600) where recordings, captures and
// SIP logs wait for the Worker. Each file's name carries an HMAC of the call and the media name
// under the spool's own key (a random key kept in `.spool-key`, 0600, created with the spool: it
// outlives a rotated node token), so at start the node uploads only files it wrote: a file
// planted in the spool (by another user, before the directory was ours) is never sent.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MediaName } from "../../schema/node-api.ts";

/** Spooled files are `<call id>-<tag>-<media name>`; the tag is 16 hex digits of HMAC-SHA256. */
const SPOOLED = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([0-9a-f]{16})-([a-z0-9.-]{1,32})$/;

/** The mode of every file the node writes to its spool. */
export const SPOOL_FILE_MODE = 0o600;

export class Spool {
  readonly dir: string;
  private readonly key: Buffer;

  /** Opens (creating) the spool directory, private to this user; `key` is hex (the spool's own when absent). */
  constructor(dir: string, key?: string) {
    this.dir = dir;
    ensurePrivateDirectory(dir);
    this.key = key ? Buffer.from(key, "hex") : spoolKey(dir);
  }

  /** Where the node writes `name` of `callId`. */
  path(callId: string, name: MediaName): string {
    return join(this.dir, `${callId}-${this.tag(callId, name)}-${name}`);
  }

  /** The call and media of a spool entry this node wrote, or null for anything else. */
  parse(entry: string): { callId: string; name: MediaName } | null {
    const [, callId, tag, name] = SPOOLED.exec(entry) ?? [];
    const media = MediaName.safeParse(name);
    if (!callId || !tag || !media.success) return null;
    const expected = Buffer.from(this.tag(callId, media.data), "hex");
    return timingSafeEqual(expected, Buffer.from(tag, "hex")) ? { callId, name: media.data } : null;
  }

  private tag(callId: string, name: string): string {
    return createHmac("sha256", this.key).update(`${callId}/${name}`).digest("hex").slice(0, 16);
  }
}

/** The key kept in the spool, created (32 random bytes, 0600) the first time. */
function spoolKey(dir: string): Buffer {
  const path = join(dir, KEY_FILE);
  try {
    writeFileSync(path, randomBytes(32).toString("hex"), { mode: SPOOL_FILE_MODE, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const key = Buffer.from(readFileSync(path, "utf8").trim(), "hex");
  if (key.length < 32) throw new Error(`media spool key ${path} is not 32 bytes of hex`);
  return key;
}

const KEY_FILE = ".spool-key";

/**
 * Creates `dir` (0700) or checks the one there: a real directory (not a symbolic link) owned by
 * this user, whose mode is then narrowed to 0700, in a parent owned by this user or root (another
 * user owning the parent could swap the directory). Anything else stops the node.
 */
function ensurePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`media spool ${dir} is not a directory (a symbolic link?)`);
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  if (uid !== null) {
    if (stat.uid !== uid) throw new Error(`media spool ${dir} belongs to another user (uid ${stat.uid}): refusing to use it`);
    const parent = lstatSync(dirname(dir));
    if (parent.uid !== uid && parent.uid !== 0) {
      throw new Error(`media spool ${dir} is in a folder of another user (uid ${parent.uid}): refusing to use it`);
    }
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
