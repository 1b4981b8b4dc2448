#!/usr/bin/env python3
"""
Writes the "aws" half of data/machine-types.json from the EC2 API's own list of instance types: the
InstanceType enum of the EC2 service model (2016-11-15) that botocore ships
(botocore/data/ec2/2016-11-15/service-2.json.gz, shape "InstanceType"). Every type the RunInstances
API accepts is in it, grouped here by family (the name before the dot).

Usage: python3 tools/data/aws-instance-types.py   (rewrites data/machine-types.json's "aws" key; keeps
the rest). Update "checked_on" and the botocore version in the source when you run it.
"""
import gzip
import json
import os
import sys

import botocore

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "data", "machine-types.json")

model = os.path.join(os.path.dirname(botocore.__file__), "data", "ec2", "2016-11-15", "service-2.json.gz")
with gzip.open(model) as handle:
    types = json.load(handle)["shapes"]["InstanceType"]["enum"]

families = {}
for name in types:
    family, size = name.split(".", 1)
    families.setdefault(family, []).append(size)

with open(TABLE) as handle:
    table = json.load(handle)
table["aws"] = {
    "source": f"EC2 API model 2016-11-15, shape InstanceType, as botocore {botocore.__version__} ships it (botocore/data/ec2/2016-11-15/service-2.json.gz); the instance types page is https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-types.html",
    "families": {family: families[family] for family in sorted(families)},
}
with open(TABLE, "w") as handle:
    json.dump(table, handle, indent=2)
    handle.write("\n")
print(f"{len(types)} instance types in {len(families)} families", file=sys.stderr)
