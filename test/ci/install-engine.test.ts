/**
 * ci/install-engine.sh against a local stand-in for the release server (a fake
 * `curl` on PATH that serves files from a directory): the digest pin, the signed
 * SHA256SUMS path with a throwaway signing key, and the refusals.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { renderChildPipeline } from "../../lib/ci/child-pipeline";
import { validatorPath } from "../support/validators";
import { pipelineYaml, resolvePipeline, resolvePipelineText } from "../../lib/ci/gitlab-ci/include";

const ROOT = join(__dirname, "..", "..");
const SCRIPT = join(ROOT, "ci", "install-engine.sh");
const VERSION = "9.9.9";
const ARCH = process.arch === "arm64" ? "arm64" : "amd64";
const ARCHIVE = `terraform_${VERSION}_linux_${ARCH}.zip`;
const SUMS = `terraform_${VERSION}_SHA256SUMS`;

const FAKE_CURL = `#!/bin/sh
# Serves "<url>" from $FAKE_RELEASES/<basename of url>; fails like curl --fail when missing.
out=""; url=""
while [ $# -gt 0 ]; do
  case "$1" in
    --output) out="$2"; shift 2 ;;
    --proto|--retry) shift 2 ;;
    -*) shift ;;
    *) url="$1"; shift ;;
  esac
done
file="$FAKE_RELEASES/$(basename "$url")"
[ -f "$file" ] || { echo "curl: (22) The requested URL returned error: 404" >&2; exit 22; }
cp "$file" "$out"
`;

describe("ci/install-engine.sh", () => {
  // The release archive and the signed release (signing key, SHA256SUMS, signature) are made once for
  // the file, and every test gets a copy of them in a release directory of its own to change as it likes.
  let made: string;
  let archive: string;
  let signed: { fingerprint: string; files: string };
  let work: string;
  let releases: string;
  let installDir: string;
  let fakeBin: string;

  beforeAll(() => {
    made = mkdtempSync(join(tmpdir(), "install-engine-release-"));
    // A release archive holding a "terraform" that prints its version.
    const payload = join(made, "payload");
    mkdirSync(payload);
    writeFileSync(join(payload, "terraform"), `#!/bin/sh\necho "Terraform v${VERSION}"\n`);
    chmodSync(join(payload, "terraform"), 0o755);
    archive = join(made, ARCHIVE);
    execFileSync("python3", ["-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], 'w'); z.write(sys.argv[2], 'terraform'); z.close()", archive, join(payload, "terraform")]);
    signed = signRelease(made, archive);
  });
  afterAll(() => rmSync(made, { recursive: true, force: true }));

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), "install-engine-"));
    releases = join(work, "releases");
    installDir = join(work, "install");
    fakeBin = join(work, "bin");
    mkdirSync(releases);
    mkdirSync(fakeBin);
    writeFileSync(join(fakeBin, "curl"), FAKE_CURL);
    chmodSync(join(fakeBin, "curl"), 0o755);
    copyFileSync(archive, join(releases, ARCHIVE));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  const run = (env: Record<string, string>) =>
    spawnSync("bash", [SCRIPT], {
      encoding: "utf8",
      env: {
        PATH: `${fakeBin}:${process.env.PATH}`,
        HOME: work,
        FAKE_RELEASES: releases,
        RUNNER_ENGINE_VERSION: VERSION,
        RUNNER_ENGINE_INSTALL_DIR: installDir,
        ...env,
      },
    });
  const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

  it("passes shellcheck, like every helper script of the pipeline", () => {
    const result = spawnSync(validatorPath("shellcheck"), ["--severity=style", SCRIPT, join(ROOT, "ci", "previous-commit.sh"), join(ROOT, "ci", "propose-generated-model.sh"), join(ROOT, "ci", "propose-revert.sh"), join(ROOT, "ci", "push-merge-request.sh")], {
      encoding: "utf8",
    });
    expect(result.error).toBeUndefined();
    expect(result.stdout).toBe("");
    expect(result.status).toBe(0);
  });

  it("installs an archive that has the pinned digest", () => {
    const result = run({ RUNNER_ENGINE_SHA256: digest(join(releases, ARCHIVE)) });

    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(execFileSync(join(installDir, "terraform"), ["version"], { encoding: "utf8" })).toBe(`Terraform v${VERSION}\n`);
  });

  it("fails when the archive does not have the pinned digest, installing nothing", () => {
    const result = run({ RUNNER_ENGINE_SHA256: "0".repeat(64) });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain("does not have the pinned digest");
    expect(existsSync(join(installDir, "terraform"))).toBe(false);
  });

  it("fails on an unknown engine or a malformed version (exit 2)", () => {
    const engine = run({ RUNNER_ENGINE: "pulumi" });
    const version = run({ RUNNER_ENGINE_VERSION: "latest" });

    expect([engine.status, version.status]).toEqual([2, 2]);
    expect(engine.stderr).toContain('RUNNER_ENGINE must be terraform or tofu, got "pulumi"');
    expect(version.stderr).toContain('RUNNER_ENGINE_VERSION must look like 1.11.4, got "latest"');
  });

  describe("with signed SHA256SUMS", () => {
    let fingerprint: string;

    beforeEach(() => {
      fingerprint = signed.fingerprint;
      for (const file of ["pgp-key.txt", SUMS, `${SUMS}.sig`]) copyFileSync(join(signed.files, file), join(releases, file));
    });

    it("installs when the sums are signed by the pinned key and list the archive's digest", () => {
      const result = run({ RUNNER_ENGINE_GPG_FINGERPRINT: fingerprint });

      expect(result.status).toBe(0);
      expect(result.stdout).toContain(`matches ${SUMS}, signed by ${fingerprint}`);
      expect(existsSync(join(installDir, "terraform"))).toBe(true);
    });

    it("fails when the release key is not the pinned one", () => {
      const result = run({ RUNNER_ENGINE_GPG_FINGERPRINT: "C874011F0AB405110D02105534365D9472D7468F" });

      expect(result.status).toBe(1);
      expect(result.stderr).toContain("is not the pinned release key");
      expect(existsSync(join(installDir, "terraform"))).toBe(false);
    });

    it("fails when the archive was swapped after signing", () => {
      writeFileSync(join(releases, ARCHIVE), "not the signed archive");

      const result = run({ RUNNER_ENGINE_GPG_FINGERPRINT: fingerprint });

      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`does not match ${SUMS}`);
      expect(existsSync(join(installDir, "terraform"))).toBe(false);
    });
  });
});

/**
 * A throwaway release signing key, and SHA256SUMS listing the archive, signed with it, as the release
 * server publishes them (pgp-key.txt, the sums and their .sig), in `<dir>/signed`. The key's gpg-agent
 * is stopped once the release is signed.
 */
function signRelease(dir: string, archive: string): { fingerprint: string; files: string } {
  const gnupg = join(dir, "signer");
  const files = join(dir, "signed");
  mkdirSync(gnupg, { mode: 0o700 });
  mkdirSync(files);
  const gpg = (...args: string[]) => execFileSync("gpg", ["--homedir", gnupg, "--batch", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  try {
    gpg("--passphrase", "", "--quick-gen-key", "Release Signer <release@example.invalid>", "ed25519", "sign", "never");
    const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg("--with-colons", "--fingerprint"))![1];
    writeFileSync(join(files, "pgp-key.txt"), gpg("--armor", "--export", fingerprint));
    const digest = createHash("sha256").update(readFileSync(archive)).digest("hex");
    writeFileSync(join(files, SUMS), `${digest}  ${ARCHIVE}\n${"1".repeat(64)}  terraform_${VERSION}_darwin_arm64.zip\n`);
    gpg("--detach-sign", "--output", join(files, `${SUMS}.sig`), join(files, SUMS));
    return { fingerprint, files };
  } finally {
    spawnSync("gpgconf", ["--homedir", gnupg, "--kill", "gpg-agent"], { stdio: "ignore" });
  }
}

describe("shell in the pipelines", () => {
  /**
   * Every script line of every job, as the sh -e of a job would run them: each job in a subshell of its
   * own (as each job is a shell of its own), so that one job's `exit` leaves the next reachable.
   */
  function scriptsOf(yamlText: string): string {
    const pipeline = parse(yamlText) as Record<string, Record<string, unknown>>;
    const jobs: string[] = [];
    for (const job of Object.values(pipeline)) {
      if (typeof job !== "object" || job === null || Array.isArray(job)) continue;
      const lines = ["before_script", "script"].flatMap((key) => (Array.isArray(job[key]) ? (job[key] as unknown[]).map(String) : []));
      if (lines.length > 0) jobs.push(`(\n${lines.join("\n")}\n)`);
    }
    return `#!/bin/sh\nset -e\n${jobs.join("\n")}\n`;
  }

  it.each([
    [".gitlab-ci.yml (with the component)", () => resolvePipeline(ROOT)],
    ["the component with its defaults (a models repository)", () => pipelineYaml(resolvePipelineText(ROOT, "include:\n  - local: templates/runner-fleet.yml\n"))],
    ["child plan pipeline", () => renderChildPipeline({ mode: "plan", cells: ["cell-1"], removed: ["cell-2"], base: "main" })],
    ["child apply pipeline", () => renderChildPipeline({ mode: "apply", cells: [], base: "main" })],
    [
      "child apply pipeline of a rollout in waves (gate and promote jobs)",
      () =>
        renderChildPipeline({
          mode: "apply",
          cells: ["cell-1", "cell-2", "cell-3"],
          base: "main",
          waves: [
            { name: "canary", cells: ["cell-1"], manual: true },
            { name: "rest", cells: ["cell-2", "cell-3"], manual: false },
          ],
          toolkit: { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" },
        }),
    ],
    [
      "child apply pipeline of a models repository",
      () => renderChildPipeline({ mode: "apply", cells: ["cell-1"], removed: ["cell-2"], base: "main", toolkit: { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" } }),
    ],
  ])("%s passes shellcheck", (_name, text) => {
    const result = spawnSync(validatorPath("shellcheck"), ["--shell=sh", "-"], { input: scriptsOf(text()), encoding: "utf8" });
    expect(result.stdout).toBe("");
    expect(result.status).toBe(0);
  });
});
