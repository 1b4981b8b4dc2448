/**
 * The package as a team gets it: the size of `npm pack`'s tarball, and the time `npm ci --offline`
 * takes to install it into an empty models repository (test/support/installed-package.ts, as the
 * tarball test does), in wall time and in npm's CPU time (user + sys, which a busy machine inflates
 * far less), and the size of the node_modules it leaves.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installOffline, packToolkit } from "../test/support/installed-package";

export interface PackageBench {
  readonly tarballBytes: number;
  readonly unpackedBytes: number;
  readonly files: number;
  readonly installWallSeconds: number;
  readonly installCpuSeconds: number;
  readonly nodeModulesBytes: number;
}

/** CPU time of the finished children of this process (user + sys), from /proc: what the npm runs used. */
function childrenCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  // cutime and cstime are fields 16 and 17 of stat (proc(5)); fields[0] here is field 3, "state". In clock ticks (100 a second on Linux).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

export function measurePackage(): PackageBench {
  const scratch = mkdtempSync(join(tmpdir(), "runner-fleet-bench-package-"));
  try {
    const packed = packToolkit(scratch);
    const repo = join(scratch, "models");
    mkdirSync(repo);
    const cpuBefore = childrenCpuSeconds();
    const started = process.hrtime.bigint();
    installOffline(packed, repo);
    const installWallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const installCpuSeconds = childrenCpuSeconds() - cpuBefore;
    const nodeModulesBytes = Number(spawnSync("du", ["-sb", join(repo, "node_modules")], { encoding: "utf8" }).stdout.split("\t")[0]);
    return { tarballBytes: packed.size, unpackedBytes: packed.unpackedSize, files: packed.files.length, installWallSeconds, installCpuSeconds, nodeModulesBytes };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const MB = 1024 * 1024;

export function formatPackageBench(bench: PackageBench): string[] {
  return [
    `${"package: npm pack".padEnd(46)} tarball ${(bench.tarballBytes / MB).toFixed(2)} MB, unpacked ${(bench.unpackedBytes / MB).toFixed(1)} MB, ${bench.files} files`,
    `${"package: npm ci --offline of the tarball".padEnd(46)} wall ${bench.installWallSeconds.toFixed(1)} s, npm CPU ${bench.installCpuSeconds.toFixed(1)} s, node_modules ${(bench.nodeModulesBytes / MB).toFixed(0)} MB`,
  ];
}
