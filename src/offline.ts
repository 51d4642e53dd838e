/**
 * The server the CLI's --offline mode asks: the same app `npm start` serves
 * (REST routes, schemas, limits, error mapping), over the kb/ shipped beside
 * this file and held in memory, listening on a loopback port for one CLI run.
 * Nothing is copied from the server's code paths, so an offline answer is the
 * server's answer for the same kb/ by construction; test/cli-offline.test.ts
 * checks it on the shared fixtures.
 */
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createAppHandle } from "./app.js";
import { createAppServer } from "./http/app-server.js";
import { createLogger } from "./core/logger.js";
import { loadKbDirectory } from "./knowledge/load.js";
import { FixedKnowledgeBase } from "./services/knowledge-base.js";

/** kb/ beside src/ (run through tsx) or dist/ (compiled): one level up either way. */
export const SHIPPED_KB_DIR = fileURLToPath(new URL("../kb/", import.meta.url));

export interface OfflineServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Throws KbValidationError (every bad record named) when the directory is not a valid kb/. */
export async function startOfflineServer(kbDir: string = SHIPPED_KB_DIR): Promise<OfflineServer> {
  const kb = FixedKnowledgeBase.fromBundle(await loadKbDirectory(kbDir));
  const handle = await createAppHandle({
    kb,
    isDatabaseReachable: () => Promise.resolve(true),
    logger: createLogger("silent"),
    answerCacheBytes: 0,
  });
  const server = createAppServer(handle.app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handle.stop();
    },
  };
}
