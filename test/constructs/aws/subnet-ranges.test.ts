import { carveSubnetRanges, cidrSubnet } from "../../../constructs/aws/subnet-ranges";
import { cidrContains } from "../../../lib/network/cidr";

describe("cidrSubnet", () => {
  // The examples of Terraform's cidrsubnet() documentation.
  test.each([
    ["172.16.0.0/12", 4, 2, "172.18.0.0/16"],
    ["10.1.2.0/24", 4, 15, "10.1.2.240/28"],
  ])("cidrsubnet(%s, %d, %d) is %s, as in Terraform", (cidr, newBits, index, expected) => {
    expect(cidrSubnet(cidr, newBits, index)).toBe(expected);
  });

  test("fails when the index does not fit in the new bits", () => {
    expect(() => cidrSubnet("10.0.0.0/16", 2, 4)).toThrow("subnet index 4 does not fit in 2 bits");
  });
});

describe("carveSubnetRanges", () => {
  test.each([1, 2, 3, 4, 6])("GIVEN %d zones THEN the private and public ranges are distinct and inside the VPC", (zones) => {
    const ranges = carveSubnetRanges("10.30.0.0/16", zones);
    expect(ranges.private).toHaveLength(zones);
    expect(ranges.public).toHaveLength(zones);
    const all = [...ranges.private, ...ranges.public];
    expect(new Set(all).size).toBe(all.length);
    for (const range of all) expect(cidrContains("10.30.0.0/16", range)).toBe(true);
  });
});
