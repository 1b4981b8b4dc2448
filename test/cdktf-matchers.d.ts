// Brings cdktf's jest matcher types (toHaveResourceWithProperties, ...) into the test program.
import "cdktf/lib/testing/adapters/jest";
