/** `npm run kb:check`: validates kb/ without touching a database; exit 1 lists every problem. */
import { loadConfig } from "../core/config.js";
import { KbValidationError } from "../core/errors.js";
import { loadKbDirectory } from "../knowledge/load.js";
import { ENTITIES, ENTITY_NAMES } from "../knowledge/registry.js";

const config = loadConfig();
try {
  const bundle = await loadKbDirectory(config.kb.dir);
  // Every kind of knowledge that depends on the Kubernetes minor says where it ends.
  const uncovered = ENTITY_NAMES.filter(
    (entity) =>
      "versioned" in ENTITIES[entity] &&
      !bundle.coverage.some((claim) => claim.knowledge === entity),
  );
  if (uncovered.length > 0) {
    process.stderr.write(
      `kb/coverage.yaml has no row for ${uncovered.join(", ")}: say through which Kubernetes minor each is known, and from which source\n`,
    );
    process.exit(1);
  }
  const counts = ENTITY_NAMES.map((entity) => `${entity}: ${bundle[entity].length}`).join(", ");
  process.stdout.write(`kb/ is valid (${counts})\n`);
} catch (error) {
  if (error instanceof KbValidationError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
