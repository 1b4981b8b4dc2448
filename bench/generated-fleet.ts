/**
 * A fleet of generated cells, alternating clouds, as trigger variables would create them
 * (`prepare --generate`): the bench's many-cell cases and the synthesis threads' test use the same one.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateModel } from "../app/prepare/generate-model";

/** Writes `count` models (`cell-100.yaml`, `cell-101.yaml`, ...) into the new directory `dir`; returns it. */
export function writeGeneratedFleet(dir: string, count: number): string {
  mkdirSync(dir);
  for (let index = 0; index < count; index++) {
    const google = index % 2 === 0;
    const cellId = `cell-${index + 100}`;
    const { text } = generateModel({
      CELL_ID: cellId,
      GITLAB_URL: `https://${cellId}.gitlab.example.com`,
      CLOUD: google ? "google" : "aws",
      REGION: google ? "europe-west4" : "eu-west-1",
      PROJECT: google ? `acme-runners-${cellId}` : undefined,
      ACCOUNT_ID: google ? undefined : "123456789012",
      NETWORK_CIDR: `10.${index % 250}.0.0/16`,
    });
    writeFileSync(join(dir, `${cellId}.yaml`), text);
  }
  return dir;
}
