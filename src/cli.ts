/**
 * The `kubecompat` executable's composition (bin/kubecompat.js imports this):
 * the CLI of src/cli/, given what --offline needs from the rest of the
 * service. The offline server is imported only when asked for, so a CLI that
 * talks to a server does not load Express, Apollo or the knowledge base.
 */
import { runCli } from "./cli/kubecompat.js";

await runCli({ startOffline: async () => (await import("./offline.js")).startOfflineServer() });
