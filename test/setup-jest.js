// The product turns off cdktf's per-token stack traces before it synthesizes (stacks/token-stack-traces.ts),
// but tests build stacks directly (Testing.app(), new CellStack(...)). Under jest the traces cost far more
// than in the product: jest maps every frame of every trace through source maps (@jest/source-map's
// wrapCallSite), which was over half the CPU of a construct test. Tests synthesize as the product does.
// The module is cdktf's small stack-trace file alone, not cdktf.
require("../stacks/token-stack-traces").skipTokenStackTraces();

// cdktf's matchers (toHaveResourceWithProperties, toBeValidTerraform, ...), registered by name and
// loaded on first use: requiring cdktf costs every suite a noticeable part of its start-up, and most
// suites never synthesize a stack.
const CDKTF_MATCHERS = [
  "toHaveResource",
  "toHaveResourceWithProperties",
  "toHaveDataSource",
  "toHaveDataSourceWithProperties",
  "toHaveProvider",
  "toHaveProviderWithProperties",
  "toBeValidTerraform",
  "toPlanSuccessfully",
];

let cdktfMatchers;

/** cdktf's own matchers, as its Testing.setupJest() hands them to expect.extend (which then gets them for good). */
function loadCdktfMatchers() {
  if (!cdktfMatchers) {
    const extend = expect.extend;
    expect.extend = (matchers) => (cdktfMatchers = matchers);
    try {
      require("cdktf").Testing.setupJest();
    } finally {
      expect.extend = extend;
    }
    const missing = CDKTF_MATCHERS.filter((name) => typeof cdktfMatchers?.[name] !== "function");
    if (missing.length > 0) throw new Error(`cdktf's Testing.setupJest() no longer registers ${missing.join(", ")}`);
    expect.extend(cdktfMatchers);
  }
  return cdktfMatchers;
}

expect.extend(
  Object.fromEntries(
    CDKTF_MATCHERS.map((name) => [
      name,
      function (...args) {
        return loadCdktfMatchers()[name].apply(this, args);
      },
    ]),
  ),
);
