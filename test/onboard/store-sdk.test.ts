/**
 * The cloud stores' SDKs are optional peers (lib/secrets/store-sdk.ts): a command that needs one and does
 * not find it stops before it does anything, saying what to install at which version. The installed
 * package without them (createSecretStore's check, prepare's warning) is tested for real in
 * test/package/tarball.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { STORE_SDKS, missingStoreSdk, requireStoreSdk, type PackageResolver } from "../../lib/secrets/store-sdk";
import { OperationalError } from "../../lib/process/errors";
import { REPO_ROOT } from "../support/cli";

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** Resolves nothing, as node does when the package is not installed. */
const notInstalled: PackageResolver = (name) => {
  throw Object.assign(new Error(`Cannot find module '${name}'`), { code: "MODULE_NOT_FOUND" });
};

test("each cloud store's SDK is an optional peer pinned exactly, not a dependency every install unpacks", () => {
  for (const name of Object.values(STORE_SDKS)) {
    expect(manifest.dependencies[name]).toBeUndefined();
    expect(manifest.peerDependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.peerDependenciesMeta[name]).toEqual({ optional: true });
  }
  expect(Object.keys(STORE_SDKS).sort()).toEqual(["aws-ssm", "google-secret-manager"]);
});

test("found where the toolkit's code loads it from: nothing is missing in this checkout, and the local store needs no SDK", () => {
  expect(missingStoreSdk("google-secret-manager")).toBeUndefined();
  expect(missingStoreSdk("aws-ssm")).toBeUndefined();
  expect(missingStoreSdk("local", notInstalled)).toBeUndefined();
});

test("not installed: the package, that it is an optional peer, and the npm command with the version runner-fleet was tested with", () => {
  expect(missingStoreSdk("aws-ssm", notInstalled)).toBe(
    `secrets.store aws-ssm needs @aws-sdk/client-ssm, which is not installed: it is an optional peer dependency of runner-fleet, ` +
      `installed beside it by the models repository (npm install --save-exact @aws-sdk/client-ssm@${manifest.peerDependencies["@aws-sdk/client-ssm"]})`,
  );
  expect(() => requireStoreSdk("google-secret-manager", notInstalled)).toThrow(OperationalError);
  expect(() => requireStoreSdk("google-secret-manager", notInstalled)).toThrow(
    `npm install --save-exact @google-cloud/secret-manager@${manifest.peerDependencies["@google-cloud/secret-manager"]}`,
  );
});

test("a resolver failing for another reason than a missing package is not reported as a missing package", () => {
  const broken: PackageResolver = () => {
    throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
  };
  expect(() => missingStoreSdk("aws-ssm", broken)).toThrow("EACCES");
});
