// Registers cdktf's matchers (toHaveResourceWithProperties, toBeValidTerraform, ...).
require("cdktf").Testing.setupJest();
