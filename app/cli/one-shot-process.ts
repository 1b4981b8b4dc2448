/**
 * Settings for a process that runs one command and exits (bin/*). Each command bundle imports this
 * first (build/bundle-commands.js), before any schema is built; tests and other entry points keep
 * the libraries' defaults.
 *
 * zod: such a process validates each input once, so compiling a fast parser per object schema
 * (zod's JIT, through `new Function`) costs more than it saves. Results are the same either way.
 */
import { config } from "zod";

config({ jitless: true });
