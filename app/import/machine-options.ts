/**
 * docker+machine `MachineOptions` ("amazonec2-region=eu-west-1", "google-preemptible") as the
 * model's cloud, region, zone, machine type, disk and spot settings.
 *
 * Option names are Docker Machine's driver flags without the leading "--", as gitlab-runner passes
 * them (docs.gitlab.com/runner/configuration/advanced-configuration.html, [runners.machine]
 * MachineOptions; GitLab's fork gitlab.com/gitlab-org/ci-cd/docker-machine, drivers/amazonec2 and
 * drivers/google). A flag without "=value" is a boolean set to true (google-preemptible).
 * The AWS zone flag is the zone's letter only ("a"); the Google zone flag is the full zone.
 *
 * Options with no place in the model are returned by name only: several hold secrets
 * (amazonec2-access-key, amazonec2-secret-key), so no value is ever repeated.
 *
 * The network the machines ran in is the model's network.existing when the options name it whole, as
 * the drivers read them (docker/machine drivers/amazonec2/amazonec2.go, drivers/google): on AWS the VPC
 * and the subnet (without a subnet the driver took the zone's default one, whose id the file does not
 * say; a subnet without the VPC leaves the model's network unnamed), on Google the subnetwork, in
 * `google-network` or else the driver's default network, "default" (without a subnetwork the driver
 * used the network's own subnetwork of the region, which the file does not name). The AWS zone is then
 * the driver's default, "a", when the options name none: the subnet is in the zone the machines asked for.
 */

export interface MachineCloud {
  readonly provider?: "google" | "aws";
  readonly region?: string;
  readonly zones: readonly string[];
  readonly project?: string;
  readonly machineType?: string;
  readonly diskSizeGb?: number;
  readonly spot?: boolean;
  /** The VPC id (AWS) or network (Google) the machines ran in, when the options name it with a subnet. */
  readonly network?: string;
  /** That network's subnet id (AWS) or subnetwork (Google). */
  readonly subnet?: string;
}

export interface MachineOptionsReading {
  readonly cloud: MachineCloud;
  /** Entries with no place in the model: index in MachineOptions, option name, why. */
  readonly unmapped: ReadonlyArray<{ readonly index: number; readonly name: string; readonly reason: string }>;
  /** Entries whose value cannot be used: index, option name, what was expected (the value is not repeated). */
  readonly invalid: ReadonlyArray<{ readonly index: number; readonly name: string; readonly expected: string }>;
  /** What the import chose where the options said nothing (the driver's defaults), or said it more than once. */
  readonly notes: readonly string[];
}

const WHY: Record<string, string> = {
  "amazonec2-access-key": "cloud credentials never go into a model: the managers use an IAM role",
  "amazonec2-secret-key": "cloud credentials never go into a model: the managers use an IAM role",
  "amazonec2-security-group": "the model creates the workers' security group itself",
  "amazonec2-spot-price": "the model bids no maximum price: spot workers pay the current spot price (price-capacity-optimized)",
  "amazonec2-ami": "docker-machine provisioned this image itself; the model's default worker image ships Docker (set workers.image to choose another)",
  "amazonec2-use-private-address": "workers never get a public address in the model",
  "amazonec2-private-address-only": "workers never get a public address in the model",
  "google-use-internal-ip": "workers never get a public address in the model",
  "google-use-internal-ip-only": "workers never get a public address in the model",
  "google-machine-image": "docker-machine provisioned this image itself; the model's default worker image gets Docker at boot (set workers.image to choose another)",
  "google-tags": "the model sets the workers' network tags itself",
};

/**
 * Docker Machine's defaults where an option is left out: docker/machine drivers/amazonec2/amazonec2.go
 * (const defaultRegion "us-east-1", defaultInstanceType "t2.micro", defaultZone "a") and
 * drivers/google/google.go (defaultZone "us-central1-a", defaultMachineType "n1-standard-1",
 * defaultNetwork "default"); GitLab's fork (gitlab.com/gitlab-org/ci-cd/docker-machine) keeps them.
 */
const DRIVER_DEFAULT_AWS_REGION = "us-east-1";
const DRIVER_DEFAULT_AWS_ZONE = "a";
const DRIVER_DEFAULT_AWS_INSTANCE_TYPE = "t2.micro";
const DRIVER_DEFAULT_GOOGLE_ZONE = "us-central1-a";
const DRIVER_DEFAULT_GOOGLE_MACHINE_TYPE = "n1-standard-1";
const DRIVER_DEFAULT_GOOGLE_NETWORK = "default";

/**
 * Options that take one value. Given more than once (cattle-ops' fleet mode lists several
 * amazonec2-instance-type and amazonec2-subnet-id for an EC2 Fleet to choose from), the first is the
 * model's and the others are named in a note: the model has one machine type (and, for AWS spot
 * workers, alternative_machine_types) and one subnet per zone.
 */
const SINGLE_VALUED = new Set([
  "amazonec2-region",
  "amazonec2-zone",
  "amazonec2-instance-type",
  "amazonec2-root-size",
  "amazonec2-vpc-id",
  "amazonec2-subnet-id",
  "google-project",
  "google-zone",
  "google-machine-type",
  "google-disk-size",
  "google-network",
  "google-subnetwork",
]);
/** Values that are names, not secrets: a note may repeat them. */
const NAMED_VALUES = new Set(["amazonec2-instance-type", "amazonec2-subnet-id", "amazonec2-zone", "amazonec2-region", "google-machine-type", "google-zone"]);

/** A network option's place in MachineOptions, for the one that cannot be used without the other. */
interface NetworkOption {
  readonly index: number;
  readonly name: string;
  readonly value: string;
}

/** "true", "1", "yes" as Docker Machine's boolean flags read them (a bare flag is true). */
function flagValue(value: string | undefined): boolean | undefined {
  if (value === undefined) return true;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  return undefined;
}

export function readMachineOptions(driver: string | undefined, options: readonly string[]): MachineOptionsReading {
  const unmapped: Array<{ index: number; name: string; reason: string }> = [];
  const invalid: Array<{ index: number; name: string; expected: string }> = [];
  const notes: string[] = [];
  const firstOf = new Map<string, string | undefined>();
  const repeats = new Map<string, Array<string | undefined>>();
  const cloud: { -readonly [K in keyof MachineCloud]: MachineCloud[K] } = { zones: [] };
  if (driver === "amazonec2") cloud.provider = "aws";
  if (driver === "google") cloud.provider = "google";
  let awsZoneLetter: string | undefined;
  const network: { vpc?: NetworkOption; subnet?: NetworkOption; googleNetwork?: NetworkOption; googleSubnetwork?: NetworkOption } = {};
  options.forEach((option, index) => {
    const equals = option.indexOf("=");
    const name = (equals === -1 ? option : option.slice(0, equals)).replace(/^--/, "");
    const value = equals === -1 ? undefined : option.slice(equals + 1);
    if (SINGLE_VALUED.has(name)) {
      if (firstOf.has(name)) {
        repeats.set(name, [...(repeats.get(name) ?? []), value]);
        unmapped.push({ index, name, reason: `${name} given again: the first one is the model's (see the notes)` });
        return;
      }
      firstOf.set(name, value);
    }
    const need = (expected: string, accept: (text: string) => boolean): string | undefined => {
      if (value !== undefined && accept(value)) return value;
      invalid.push({ index, name, expected });
      return undefined;
    };
    switch (name) {
      case "amazonec2-region":
        cloud.provider ??= "aws";
        cloud.region = need("an AWS region such as eu-west-1", (text) => /^[a-z]{2}(-gov)?-[a-z]+-[0-9]$/.test(text));
        return;
      case "amazonec2-zone":
        awsZoneLetter = need("the zone's letter, such as a", (text) => /^[a-z]$/.test(text));
        return;
      case "amazonec2-instance-type":
        cloud.machineType = need("an EC2 instance type such as m7i.large", (text) => /^[a-z0-9-]+\.[a-z0-9]+$/.test(text));
        return;
      case "amazonec2-root-size":
      case "google-disk-size": {
        const size = need("a disk size in GB", (text) => /^[0-9]+$/.test(text));
        if (size !== undefined) cloud.diskSizeGb = Number(size);
        return;
      }
      case "amazonec2-request-spot-instance":
      case "google-preemptible": {
        const spot = flagValue(value);
        if (spot === undefined) invalid.push({ index, name, expected: "true or false" });
        else cloud.spot = spot;
        return;
      }
      case "google-project":
        cloud.provider ??= "google";
        cloud.project = need("a Google Cloud project id", (text) => text.length > 0);
        return;
      case "google-zone": {
        cloud.provider ??= "google";
        const zone = need("a Google Cloud zone such as europe-west4-b", (text) => /^[a-z]+-[a-z]+[0-9]+-[a-z]$/.test(text));
        if (zone) {
          cloud.zones = [zone];
          cloud.region = zone.replace(/-[a-z]$/, "");
        }
        return;
      }
      case "google-machine-type":
        cloud.machineType = need("a Google Cloud machine type such as n2d-standard-2", (text) => /^[a-z0-9-]+$/.test(text));
        return;
      case "amazonec2-vpc-id":
      case "amazonec2-subnet-id":
      case "google-network":
      case "google-subnetwork": {
        const accepted = need(NETWORK_OPTIONS[name].expected, (text) => NETWORK_OPTIONS[name].pattern.test(text));
        if (accepted !== undefined) network[NETWORK_OPTIONS[name].key] = { index, name, value: accepted };
        return;
      }
      default:
        unmapped.push({ index, name, reason: WHY[name] ?? "no equivalent in the model" });
    }
  });
  if (network.vpc && network.subnet) {
    cloud.network = network.vpc.value;
    cloud.subnet = network.subnet.value;
    awsZoneLetter ??= DRIVER_DEFAULT_AWS_ZONE;
  } else if (network.vpc) {
    unmapped.push({ ...network.vpc, reason: "a VPC without amazonec2-subnet-id: docker+machine took the zone's default subnet, which the file does not name; to keep this VPC, set network.existing with its subnets" });
  } else if (network.subnet) {
    unmapped.push({ ...network.subnet, reason: "a subnet without amazonec2-vpc-id: to keep it, set network.existing with its VPC" });
  }
  if (network.googleSubnetwork) {
    cloud.network = network.googleNetwork?.value ?? DRIVER_DEFAULT_GOOGLE_NETWORK;
    cloud.subnet = network.googleSubnetwork.value;
  } else if (network.googleNetwork) {
    unmapped.push({
      ...network.googleNetwork,
      reason: "a network without google-subnetwork: docker+machine used the network's subnetwork of the region, which the file does not name; to keep this network, set network.existing with its subnetwork",
    });
  }
  for (const [name, values] of repeats) {
    const shown = NAMED_VALUES.has(name) ? `: kept ${firstOf.get(name)}; also listed ${values.join(", ")}` : " (values not repeated: they may be secrets)";
    const alternatives =
      name === "amazonec2-instance-type"
        ? " (docker-machine's EC2 Fleet mode chose among them; for spot workers, workers.alternative_machine_types takes the others)"
        : name === "amazonec2-subnet-id"
          ? " (network.existing.subnets takes one subnet per availability zone: add the others with their zones)"
          : "";
    notes.push(`MachineOptions give ${name} ${values.length + 1} times${shown}${alternatives}`);
  }
  if (driver === "amazonec2") {
    if (cloud.region === undefined && !firstOf.has("amazonec2-region")) {
      cloud.region = DRIVER_DEFAULT_AWS_REGION;
      notes.push(`MachineOptions name no amazonec2-region: docker-machine's amazonec2 driver used ${DRIVER_DEFAULT_AWS_REGION}`);
    }
    if (awsZoneLetter === undefined && !firstOf.has("amazonec2-zone")) {
      awsZoneLetter = DRIVER_DEFAULT_AWS_ZONE;
      notes.push(`MachineOptions name no amazonec2-zone: docker-machine's amazonec2 driver used zone ${DRIVER_DEFAULT_AWS_ZONE}`);
    }
    if (cloud.machineType === undefined && !firstOf.has("amazonec2-instance-type")) {
      cloud.machineType = DRIVER_DEFAULT_AWS_INSTANCE_TYPE;
      notes.push(`MachineOptions name no amazonec2-instance-type: docker-machine's amazonec2 driver launched ${DRIVER_DEFAULT_AWS_INSTANCE_TYPE}, kept as workers.machine_type: consider a current type`);
    }
  }
  if (driver === "google") {
    if (cloud.zones.length === 0 && !firstOf.has("google-zone")) {
      cloud.zones = [DRIVER_DEFAULT_GOOGLE_ZONE];
      cloud.region = DRIVER_DEFAULT_GOOGLE_ZONE.replace(/-[a-z]$/, "");
      notes.push(`MachineOptions name no google-zone: docker-machine's google driver used ${DRIVER_DEFAULT_GOOGLE_ZONE}`);
    }
    if (cloud.machineType === undefined && !firstOf.has("google-machine-type")) {
      cloud.machineType = DRIVER_DEFAULT_GOOGLE_MACHINE_TYPE;
      notes.push(`MachineOptions name no google-machine-type: docker-machine's google driver launched ${DRIVER_DEFAULT_GOOGLE_MACHINE_TYPE}, kept as workers.machine_type: consider a current type`);
    }
  }
  if (awsZoneLetter && cloud.region) cloud.zones = [`${cloud.region}${awsZoneLetter}`];
  return { cloud, unmapped: unmapped.sort((a, b) => a.index - b.index), invalid, notes };
}

/** The network options: what each must look like, and where it goes. */
const NETWORK_OPTIONS: Record<string, { readonly expected: string; readonly pattern: RegExp; readonly key: "vpc" | "subnet" | "googleNetwork" | "googleSubnetwork" }> = {
  "amazonec2-vpc-id": { expected: "an AWS VPC id such as vpc-0123456789abcdef0", pattern: /^vpc-[0-9a-f]+$/, key: "vpc" },
  "amazonec2-subnet-id": { expected: "an AWS subnet id such as subnet-0123456789abcdef0", pattern: /^subnet-[0-9a-f]+$/, key: "subnet" },
  // A name, or a self link (projects/<p>/global/networks/<name>, with or without https://www.googleapis.com/compute/v1/).
  "google-network": { expected: "a Google Cloud network name or self link", pattern: /^[a-z0-9./:_-]+$/i, key: "googleNetwork" },
  "google-subnetwork": { expected: "a Google Cloud subnetwork name or self link", pattern: /^[a-z0-9./:_-]+$/i, key: "googleSubnetwork" },
};
