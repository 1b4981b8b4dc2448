/**
 * The cloud secret stores' SDKs are optional peer dependencies of runner-fleet (package.json), as cdktf
 * and the provider bindings are: a models repository installs the one its models' `secrets.store`
 * names (`init` adds it for the example's cloud), so a Google team's pipeline does not unpack the AWS
 * SDK in every job, nor an AWS team gRPC and Google's client libraries. Together they were 130 of the
 * 179 packages an install of runner-fleet unpacked, and ~5,900 of its ~8,600 files (55 of 98 MB).
 *
 * A command that needs a store's SDK checks it is there before it does anything (createSecretStore), so
 * a missing one stops onboard before its first GitLab call, with the command that installs it.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { PROJECT_ROOT } from "../files/project-root";
import { toolkitPeerVersion } from "../files/toolkit-version";
import { OperationalError } from "../process/errors";
import type { RunnerModel } from "../model/schema";

type Store = RunnerModel["secrets"]["store"];

/** The package each cloud store's client is, by `secrets.store`. */
export const STORE_SDKS: Readonly<Partial<Record<Store, string>>> = {
  "google-secret-manager": "@google-cloud/secret-manager",
  "aws-ssm": "@aws-sdk/client-ssm",
};

/** Finds an installed package as the toolkit's code would load it: from the toolkit's own directory up. */
export type PackageResolver = (name: string) => string;

const fromToolkit: PackageResolver = (name) => createRequire(join(PROJECT_ROOT, "package.json")).resolve(name);

/** What is missing for `store`, in words with the command that installs it; undefined when nothing is. */
export function missingStoreSdk(store: Store, resolve: PackageResolver = fromToolkit): string | undefined {
  const name = STORE_SDKS[store];
  if (name === undefined) return undefined;
  try {
    resolve(name);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    return (
      `secrets.store ${store} needs ${name}, which is not installed: it is an optional peer dependency of runner-fleet, ` +
      `installed beside it by the models repository (npm install --save-exact ${name}@${toolkitPeerVersion(name)})`
    );
  }
}

/** Throws (exit 1, before any side effect) when the SDK of `store` is not installed. */
export function requireStoreSdk(store: Store, resolve?: PackageResolver): void {
  const missing = missingStoreSdk(store, resolve);
  if (missing !== undefined) throw new OperationalError(missing);
}
