/**
 * What the system tests need from the machine: root, systemd-nspawn and nsenter, and the Debian
 * rootfs that `tools/setup/system-rootfs.sh` builds. When one is missing, the suite fails with one
 * line that says what and names the set-up command; it never passes or skips silently.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";

export const REPO_ROOT = join(__dirname, "..", "..", "..");
export const SYSTEM_ROOTFS = join(REPO_ROOT, ".cache", "system-rootfs");
/** Written last by the set-up script: a rootfs without it is half built. */
export const ROOTFS_STAMP = join(SYSTEM_ROOTFS, "runner-fleet-rootfs.stamp");
export const SETUP_COMMAND = "sudo tools/setup/system-rootfs.sh";

function onPath(command: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Why the system tests cannot run here, or undefined when they can. */
export function missingPrerequisite(): string | undefined {
  if (process.getuid?.() !== 0) return `they must run as root (systemd-nspawn boots the test containers); run \`sudo npm run test:system\` after \`${SETUP_COMMAND}\``;
  if (!onPath("systemd-nspawn")) return `systemd-nspawn is not installed (Debian package systemd-container); run \`${SETUP_COMMAND}\``;
  if (!onPath("nsenter")) return "nsenter is not installed (Debian package util-linux)";
  if (!existsSync(ROOTFS_STAMP)) return `no system-test rootfs at ${SYSTEM_ROOTFS}; run \`${SETUP_COMMAND}\``;
  return undefined;
}

/** Throws a one-line error (no stack) when the system tests cannot run here. */
export function requireSystemTestHost(): void {
  const reason = missingPrerequisite();
  if (reason === undefined) return;
  const error = new Error(`system tests cannot run: ${reason}`);
  error.stack = error.message;
  throw error;
}
