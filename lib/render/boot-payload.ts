/**
 * The one startup payload a VM boots with (GCE `startup-script` metadata, EC2 user data): a short bash
 * script that writes the VM's files, then runs its entry script. The files carry the logic (plain scripts
 * from scripts/) and the data (settings, config.toml, systemd units); the payload itself has none.
 */
import { template } from "../templates/template-engine";
import type { BootFile } from "./boot-files";

/** Heredoc delimiter around each file; no file may contain it as a line. */
export const PAYLOAD_HEREDOC_DELIMITER = "RUNNER_FLEET_FILE_END";

export interface BootPayloadContext {
  readonly title: string;
  /** Absolute path of the entry script on the VM; the payload runs it with `boot`. */
  readonly entry: string;
  readonly delimiter: string;
  readonly files: readonly BootFile[];
}

/** The payload that writes `files` and runs `entry`. Each file's content gets exactly one final line break. */
export function renderBootPayload(title: string, entry: string, files: readonly BootFile[]): string {
  if (!files.some((file) => file.path === entry)) throw new Error(`the payload of ${title} runs ${entry}, which is not one of its files`);
  const paths = new Set<string>();
  const written = files.map((file) => {
    if (!file.path.startsWith("/") || file.path.includes("/../") || /\s|'/.test(file.path)) throw new Error(`boot file path ${JSON.stringify(file.path)} must be absolute, without spaces, quotes or ..`);
    if (paths.has(file.path)) throw new Error(`the payload of ${title} writes ${file.path} twice`);
    paths.add(file.path);
    const content = file.content.replace(/\n$/, "");
    if (content.split("\n").includes(PAYLOAD_HEREDOC_DELIMITER)) {
      throw new Error(`${file.path} contains the line ${PAYLOAD_HEREDOC_DELIMITER}, which would end its heredoc early`);
    }
    return { ...file, content };
  });
  return template<BootPayloadContext>("startup/payload.sh.hbs")({ title, entry, delimiter: PAYLOAD_HEREDOC_DELIMITER, files: written });
}

/** A put_file line of the payload: path, mode and heredoc delimiter. */
const PUT_FILE = /^put_file '([^']+)' (0[0-7]{3}) <<'([A-Z_]+)'$/;

export interface ParsedPayload {
  /** The files it writes (the inverse of renderBootPayload's file list). */
  readonly files: readonly BootFile[];
  /**
   * The payload without the bodies of its quoted heredocs and without comments: what bash itself parses
   * of it (a quoted heredoc's body is text to bash, never syntax), so `bash -n` on it says what `bash -n`
   * on the payload says, and payloads that differ only in their files' contents share one check.
   */
  readonly skeleton: string;
}

/** Reads a payload back in one pass over its lines. */
export function parsePayload(payload: string): ParsedPayload {
  const lines = payload.split("\n");
  const files: BootFile[] = [];
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    // Comments (the manager's name in the title) are not syntax; the shebang stays.
    if (index > 0 && /^\s*#/.test(lines[index])) continue;
    kept.push(lines[index]);
    const match = PUT_FILE.exec(lines[index]);
    if (!match) continue;
    const end = lines.indexOf(match[3], index + 1);
    if (end < 0) break;
    files.push({ path: match[1], mode: match[2] as BootFile["mode"], content: `${lines.slice(index + 1, end).join("\n")}\n` });
    kept.push(lines[end]);
    index = end;
  }
  return { files, skeleton: kept.join("\n") };
}

/** Whether a boot file is a script bash runs (an entry in sbin or a sourced part). */
export function isBootScript(file: BootFile): boolean {
  return file.path.endsWith(".sh") || file.path.startsWith("/usr/local/sbin/");
}
