/**
 * Zones of each region when this list was last checked, as zone letters. A zone not
 * listed for a listed region gets a warning (a typo such as us-east-1g or us-central1-e
 * fails only at apply); a region not listed here is not checked (see cloud-regions.ts).
 * It is a warning, not an error, because the clouds add zones to existing regions
 * (us-west-2d, ap-northeast-1d): update the list and the date together.
 *
 * Sources:
 * - Google Cloud: "Regions and zones", https://cloud.google.com/compute/docs/regions-zones
 *   (the table of available regions and zones).
 * - AWS: "AWS Availability Zones",
 *   https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html
 *   and `aws ec2 describe-availability-zones --all-availability-zones`. AWS maps zone letters to
 *   physical zones per account and not every account sees every letter (us-west-1 shows two of
 *   a, b, c); the list holds every letter any account can see. Regions whose zones were not
 *   confirmed are left out rather than guessed.
 */
export const CLOUD_ZONES_CHECKED_ON = "2026-11-25";

const ABC = "abc";

/** Region -> zone letters (europe-west1 -> "bcd": europe-west1-b, -c, -d). */
export const GOOGLE_CLOUD_ZONE_LETTERS: Readonly<Record<string, string>> = {
  "africa-south1": ABC,
  "asia-east1": ABC,
  "asia-east2": ABC,
  "asia-northeast1": ABC,
  "asia-northeast2": ABC,
  "asia-northeast3": ABC,
  "asia-south1": ABC,
  "asia-south2": ABC,
  "asia-southeast1": ABC,
  "asia-southeast2": ABC,
  "australia-southeast1": ABC,
  "australia-southeast2": ABC,
  "europe-central2": ABC,
  "europe-north1": ABC,
  "europe-north2": ABC,
  "europe-southwest1": ABC,
  "europe-west1": "bcd",
  "europe-west2": ABC,
  "europe-west3": ABC,
  "europe-west4": ABC,
  "europe-west6": ABC,
  "europe-west8": ABC,
  "europe-west9": ABC,
  "europe-west10": ABC,
  "europe-west12": ABC,
  "me-central1": ABC,
  "me-central2": ABC,
  "me-west1": ABC,
  "northamerica-northeast1": ABC,
  "northamerica-northeast2": ABC,
  "southamerica-east1": ABC,
  "southamerica-west1": ABC,
  "us-central1": "abcf",
  "us-east1": "bcd",
  "us-east4": ABC,
  "us-east5": ABC,
  "us-south1": ABC,
  "us-west1": ABC,
  "us-west2": ABC,
  "us-west3": ABC,
  "us-west4": ABC,
};

export const AWS_ZONE_LETTERS: Readonly<Record<string, string>> = {
  "af-south-1": ABC,
  "ap-east-1": ABC,
  "ap-northeast-1": "abcd",
  "ap-northeast-2": "abcd",
  "ap-northeast-3": ABC,
  "ap-south-1": ABC,
  "ap-south-2": ABC,
  "ap-southeast-1": ABC,
  "ap-southeast-2": ABC,
  "ap-southeast-3": ABC,
  "ap-southeast-4": ABC,
  "ca-central-1": "abd",
  "ca-west-1": ABC,
  "eu-central-1": ABC,
  "eu-central-2": ABC,
  "eu-north-1": ABC,
  "eu-south-1": ABC,
  "eu-south-2": ABC,
  "eu-west-1": ABC,
  "eu-west-2": ABC,
  "eu-west-3": ABC,
  "il-central-1": ABC,
  "me-central-1": ABC,
  "me-south-1": ABC,
  "sa-east-1": ABC,
  "us-east-1": "abcdef",
  "us-east-2": ABC,
  "us-gov-east-1": ABC,
  "us-gov-west-1": ABC,
  "us-west-1": ABC,
  "us-west-2": "abcd",
};

/** The zone names of `region` on `provider`, or undefined when the region's zones are not listed. */
export function knownZones(provider: "google" | "aws", region: string): string[] | undefined {
  const letters = (provider === "google" ? GOOGLE_CLOUD_ZONE_LETTERS : AWS_ZONE_LETTERS)[region];
  if (letters === undefined) return undefined;
  return [...letters].map((letter) => (provider === "google" ? `${region}-${letter}` : `${region}${letter}`));
}
