/**
 * Machine families the clouds offered when this list was last checked, and the shape of a type's
 * name within its family, so a type that does not exist (m7i.lage, n2d-standrad-2, e2-large) is
 * refused before apply. Families, not every type: a size that exists in one family and not another
 * (m7i.metal-24xl but not m7g.metal-24xl) is not caught, which the apply still does.
 *
 * Update the lists and the date together. Sources:
 * - AWS: "Amazon EC2 instance types", https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-types.html
 *   (current and previous generation families; sizes per "Instance type naming conventions").
 * - Google Cloud: "Machine families resource and comparison guide",
 *   https://cloud.google.com/compute/docs/machine-resource (series, machine types and custom types).
 * The price table (data/prices.json) prices a subset of these.
 */
export const MACHINE_TYPES_CHECKED_ON = "2026-11-25";

export const AWS_INSTANCE_FAMILIES: ReadonlySet<string> = new Set(
  (
    "a1 t2 t3 t3a t4g m4 m5 m5a m5ad m5d m5dn m5n m5zn m6a m6g m6gd m6i m6id m6idn m6in m7a m7g m7gd m7i m7i-flex " +
    "m8a m8g m8gd m8i m8i-flex mac1 mac2 mac2-m2 mac2-m2pro c4 c5 c5a c5ad c5d c5n c6a c6g c6gd c6gn c6i c6id c6in " +
    "c7a c7g c7gd c7gn c7i c7i-flex c8a c8g c8gd c8gn c8i c8i-flex r4 r5 r5a r5ad r5b r5d r5dn r5n r6a r6g r6gd r6i " +
    "r6id r6idn r6in r7a r7g r7gd r7i r7iz r8a r8g r8gd r8i r8i-flex x1 x1e x2gd x2idn x2iedn x2iezn x8g z1d d2 d3 " +
    "d3en h1 i3 i3en i4g i4i i7i i7ie i8g im4gn is4gen g4ad g4dn g5 g5g g6 g6e g6f gr6 gr6f p3 p3dn p4d p4de p5 p5e " +
    "p5en inf1 inf2 trn1 trn1n trn2 dl1 dl2q f1 f2 vt1 hpc6a hpc6id hpc7a hpc7g"
  ).split(" "),
);

/** Sizes: nano ... xlarge, Nxlarge, metal, metal-Nxl. */
const AWS_SIZE = /^(nano|micro|small|medium|large|xlarge|[0-9]+xlarge|metal|metal-[0-9]+xl)$/;

export const GOOGLE_MACHINE_SERIES: ReadonlySet<string> = new Set(
  "e2 n1 n2 n2d n4 n4a n4d c2 c2d c3 c3d c4 c4a c4d t2a t2d m1 m2 m3 m4 x4 a2 a3 a4 g2 g4 h3 h4d z3".split(" "),
);

/** After the series: a class and vCPUs (a GPU count "8g", "-lssd" or "-metal" may follow), or a custom shape. */
const GOOGLE_SHAPE =
  /^((standard|highmem|highcpu|megamem|ultramem|hypermem|highgpu|megagpu|ultragpu|edgegpu|highlssd)-[0-9]+(g|-lssd|-metal)?|custom-[0-9]+-[0-9]+(-ext)?)$/;
/** Shared-core and first-generation names that follow no series-class-vCPU shape. */
const GOOGLE_SPECIAL = new Set(["e2-micro", "e2-small", "e2-medium", "f1-micro", "g1-small"]);

/** True when the type's family is listed and its name has the family's shape. */
export function isKnownMachineType(provider: "google" | "aws", machineType: string): boolean {
  if (provider === "aws") {
    const dot = machineType.indexOf(".");
    return dot > 0 && AWS_INSTANCE_FAMILIES.has(machineType.slice(0, dot)) && AWS_SIZE.test(machineType.slice(dot + 1));
  }
  if (GOOGLE_SPECIAL.has(machineType)) return true;
  // N1 custom types carry no series: custom-4-16384.
  if (/^custom-[0-9]+-[0-9]+(-ext)?$/.test(machineType)) return true;
  const dash = machineType.indexOf("-");
  return dash > 0 && GOOGLE_MACHINE_SERIES.has(machineType.slice(0, dash)) && GOOGLE_SHAPE.test(machineType.slice(dash + 1));
}
