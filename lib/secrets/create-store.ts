/**
 * The secret store a model names in `secrets.store`. A cloud store's SDK (an optional peer dependency,
 * ./store-sdk.ts) must be installed: checked here, before the command that asked does anything.
 */
import { UserInputError } from "../process/errors";
import type { RunnerModel } from "../model/schema";
import { AwsSsmStore, type SsmApi } from "./aws-ssm-store";
import { GoogleSecretManagerStore, type SecretManagerApi } from "./google-secret-manager-store";
import { LocalSecretStore } from "./local-store";
import { requireStoreSdk } from "./store-sdk";
import type { SecretStore } from "./store";

export interface SecretStoreOptions {
  /** Resolves a relative `secrets.local_dir`: the workspace (lib/files/workspace.ts), which every command passes. @default process.cwd() */
  readonly baseDir?: string;
  /** Replaces the Secret Manager SDK client (tests). */
  readonly googleClient?: () => SecretManagerApi | Promise<SecretManagerApi>;
  /** Replaces the SSM SDK client (tests). */
  readonly ssmClient?: (region: string) => SsmApi;
  /** Region of the SSM store when the model's cloud is not AWS. @default $AWS_REGION */
  readonly env?: NodeJS.ProcessEnv;
}

export function createSecretStore(model: RunnerModel, options: SecretStoreOptions = {}): SecretStore {
  switch (model.secrets.store) {
    case "local":
      return new LocalSecretStore(model, options.baseDir);
    case "google-secret-manager": {
      if (model.cloud.provider !== "google") {
        throw new UserInputError(`secrets.store google-secret-manager needs a Google Cloud model (cloud.provider google), received ${model.cloud.provider}`);
      }
      if (!options.googleClient) requireStoreSdk(model.secrets.store);
      return new GoogleSecretManagerStore(model, model.cloud.project, options.googleClient);
    }
    case "aws-ssm": {
      const region = model.cloud.provider === "aws" ? model.cloud.region : (options.env ?? process.env).AWS_REGION;
      if (!region) throw new UserInputError("secrets.store aws-ssm needs an AWS model (cloud.provider aws) or AWS_REGION");
      if (!options.ssmClient) requireStoreSdk(model.secrets.store);
      return new AwsSsmStore(model, region, options.ssmClient);
    }
  }
}
