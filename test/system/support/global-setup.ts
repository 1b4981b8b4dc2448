/**
 * The system tests' global setup: when the machine cannot run them (not root, no systemd-nspawn, no
 * rootfs), the whole run fails once, with one line that says why and names the set-up command, instead
 * of every test failing on its own.
 */
import { requireSystemTestHost } from "./system-prerequisites";

export default function systemTestsGlobalSetup(): void {
  requireSystemTestHost();
}
