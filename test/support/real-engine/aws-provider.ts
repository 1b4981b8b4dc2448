/**
 * Where the real `terraform-provider-aws` binary is, served to `terraform init` as a
 * filesystem mirror, so the AWS stacks are initialized, validated and planned by the
 * real provider with no network.
 *
 * The binary is found by its file name (`terraform-provider-aws_v<version>[_x<n>]`)
 * under $RUNNER_FLEET_AWS_PROVIDER_DIR, or else under /opt/tf-plugins, where the
 * development and CI machines carry it.
 */
import { mkdirSync, readdirSync, statSync, symlinkSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, sep } from "node:path";
import { createHash } from "node:crypto";

export const AWS_PROVIDER_DIR_ENV = "RUNNER_FLEET_AWS_PROVIDER_DIR";
export const DEFAULT_AWS_PROVIDER_DIR = "/opt/tf-plugins";

const BINARY_NAME = /^terraform-provider-aws_v(\d+\.\d+\.\d+)(_x\d+)?$/;
/** How deep to look below the directory: a mirror's layout is host/namespace/type/version/platform. */
const MAX_DEPTH = 6;
const PLATFORM = `${process.platform}_${process.arch === "x64" ? "amd64" : process.arch}`;

export interface AwsProvider {
  readonly binary: string;
  readonly version: string;
  /** A directory in the unpacked mirror layout that serves this binary. */
  readonly mirrorDir: string;
  /** A Terraform CLI configuration that installs hashicorp/aws from the mirror only. */
  readonly cliConfigFile: string;
}

/** The provider, or why it cannot be used. */
export function findAwsProvider(env: NodeJS.ProcessEnv = process.env): AwsProvider | { readonly missing: string } {
  const dir = env[AWS_PROVIDER_DIR_ENV] || DEFAULT_AWS_PROVIDER_DIR;
  const source = env[AWS_PROVIDER_DIR_ENV] ? `$${AWS_PROVIDER_DIR_ENV} (${dir})` : `${dir} (set $${AWS_PROVIDER_DIR_ENV} to look elsewhere)`;
  if (!existsSync(dir)) return { missing: `no terraform-provider-aws binary: ${source} does not exist` };
  const binaries = findBinaries(dir, 0).filter((file) => isExecutableFile(file));
  if (binaries.length === 0) return { missing: `no executable terraform-provider-aws_v* file under ${source}` };
  const binary = binaries.sort((a, b) => compareVersions(versionOf(b), versionOf(a)))[0];
  const version = versionOf(binary);
  const mirrorDir = mirrorFor(binary, version);
  return { binary, version, mirrorDir, cliConfigFile: writeCliConfig(mirrorDir) };
}

function findBinaries(dir: string, depth: number): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && depth < MAX_DEPTH) return findBinaries(path, depth + 1);
    return BINARY_NAME.test(entry.name) ? [path] : [];
  });
}

function isExecutableFile(file: string): boolean {
  try {
    const stat = statSync(file);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

function versionOf(binary: string): string {
  return BINARY_NAME.exec(basename(binary))![1];
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/**
 * The mirror root when the binary already sits in the unpacked layout
 * (`<root>/registry.terraform.io/hashicorp/aws/<version>/<platform>/`); otherwise a
 * mirror of our own in the temporary directory, holding a link to the binary.
 */
function mirrorFor(binary: string, version: string): string {
  const layout = ["registry.terraform.io", "hashicorp", "aws", version, PLATFORM].join(sep);
  const platformDir = dirname(binary);
  if (platformDir.endsWith(`${sep}${layout}`)) return platformDir.slice(0, -layout.length - 1);
  const root = join(tmpdir(), `runner-fleet-aws-mirror-${hash(binary)}`);
  const target = join(root, layout, basename(binary));
  if (!existsSync(target)) {
    mkdirSync(dirname(target), { recursive: true });
    try {
      symlinkSync(binary, target);
    } catch (error) {
      // Another test worker made the same link first.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return root;
}

function writeCliConfig(mirrorDir: string): string {
  const file = join(tmpdir(), `runner-fleet-aws-mirror-${hash(mirrorDir)}.tfrc`);
  // Only the mirror: with no `direct` block, nothing is ever fetched from a registry.
  const text = `provider_installation {\n  filesystem_mirror {\n    path    = ${JSON.stringify(mirrorDir)}\n    include = ["registry.terraform.io/hashicorp/aws"]\n  }\n}\n`;
  writeFileSync(file, text);
  return file;
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}
