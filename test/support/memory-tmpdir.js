"use strict";
/**
 * Where test/global-setup.js makes the run's temporary directory: in memory, under /dev/shm (a tmpfs),
 * when that has room. The suite writes tens of thousands of temporary files (copies and checkouts of
 * git refs, a package install, Terraform working directories), each dearer to the kernel on a disk
 * with a journal than in memory: the review suites spend about 15% less CPU, the package install's
 * system time falls by half.
 *
 * Only with 4 GB free there (a container's /dev/shm is 64 MB: its run keeps the system's directory), and
 * only where it may run programs: tests run stand-ins they write there (a fake terraform, the package's
 * installed bin), and Docker and many hardened hosts mount /dev/shm noexec.
 * A run that was killed leaves its directory, which the next run removes (the jest process its name
 * carries is gone), so memory is not held until the machine restarts.
 */
const { readFileSync, readdirSync, rmSync, statfsSync } = require("node:fs");
const { join } = require("node:path");

const SHARED_MEMORY = "/dev/shm";
const NEEDED_BYTES = 4 * 1024 ** 3;

/** The directory to make the run's directory in, named `<prefix><pid>-`: /dev/shm, or undefined (the system's). */
function memoryTmpBase(prefix) {
  try {
    removeAbandoned(prefix);
    const { bavail, bsize } = statfsSync(SHARED_MEMORY);
    return bavail * bsize >= NEEDED_BYTES && !mountedNoexec(SHARED_MEMORY) ? SHARED_MEMORY : undefined;
  } catch {
    // No /dev/shm (not Linux), or not ours to read.
    return undefined;
  }
}

/** Whether the mount at `mountPoint` carries noexec (/proc/self/mounts: device, mount point, type, options). */
function mountedNoexec(mountPoint, mounts = readFileSync("/proc/self/mounts", "utf8")) {
  const options = mounts
    .split("\n")
    .map((line) => line.split(" "))
    .filter((fields) => fields[1] === mountPoint)
    .map((fields) => fields[3].split(","));
  // The last mount at a point is the one in effect; none listed means it is part of / (checked by its own mount).
  return options.length > 0 && options[options.length - 1].includes("noexec");
}

/** Directories of runs whose jest process is gone. Another user's, which this one may not remove, are left. */
function removeAbandoned(prefix) {
  for (const name of readdirSync(SHARED_MEMORY)) {
    const pid = name.startsWith(prefix) ? /^(\d+)-/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (pid === undefined || alive(Number(pid))) continue;
    try {
      rmSync(join(SHARED_MEMORY, name), { recursive: true, force: true });
    } catch {
      // Not ours.
    }
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

module.exports = { memoryTmpBase, mountedNoexec };
