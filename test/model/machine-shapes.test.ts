import { machineShape } from "../../lib/model/machine-shapes";

describe("machine shapes", () => {
  it.each([
    ["google", "n2d-standard-8", 8, 32],
    ["google", "e2-standard-2", 2, 8],
    ["google", "n2-highmem-4", 4, 32],
    ["google", "e2-highcpu-16", 16, 16],
    ["google", "t2a-standard-4", 4, 16],
    ["aws", "m7i.large", 2, 8],
    ["aws", "m5.xlarge", 4, 16],
    ["aws", "c7gn.2xlarge", 8, 16],
    ["aws", "r6i.24xlarge", 96, 768],
  ] as const)("%s %s has %i vCPUs and %i GiB", (provider, type, vcpus, gib) => {
    expect(machineShape(provider, type)).toEqual({ vcpus, memoryMiB: gib * 1024 });
  });

  it.each([
    ["google", "n1-standard-8"],
    ["google", "e2-medium"],
    ["google", "c4-standard-8"],
    ["google", "c3-highcpu-8"],
    ["google", "custom-8-32768"],
    ["aws", "t3.large"],
    ["aws", "m7i-flex.large"],
    ["aws", "m5.metal"],
    ["aws", "m4.large"],
    ["aws", "x2iedn.xlarge"],
  ] as const)("does not guess %s %s", (provider, type) => {
    expect(machineShape(provider, type)).toBeUndefined();
  });
});
