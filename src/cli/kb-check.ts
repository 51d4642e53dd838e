/** `npm run kb:check`: validates kb/ without touching a database; exit 1 lists every problem. */
import { parseConfig } from "../config.js";
import { KbValidationError } from "../errors.js";
import { loadKbDirectory } from "../kb/load.js";
import { ENTITY_NAMES } from "../kb/records.js";

const config = parseConfig();
try {
  const bundle = await loadKbDirectory(config.kb.dir);
  const counts = ENTITY_NAMES.map((entity) => `${entity}: ${bundle[entity].length}`).join(", ");
  process.stdout.write(`kb/ is valid (${counts})\n`);
} catch (error) {
  if (error instanceof KbValidationError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
