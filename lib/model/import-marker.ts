/**
 * The words `import` writes at the top of a model it made (app/import/model-text.ts) and the review
 * reads back (lib/review/imported-models.ts): shared here so the two cannot drift apart.
 */

/** The header line that says a model was imported from existing runner managers. */
export const IMPORTED_MODEL_MARKER = "Imported by runner-fleet import";
/** The header line above the runners `import --adopt` adopted, one "shard x adopts runner #n ..." line each. */
export const ADOPTED_RUNNERS_HEADING = "Runners adopted (tokens in the secret store; onboard keeps them, it does not create new runners):";
