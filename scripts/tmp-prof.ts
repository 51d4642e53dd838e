import path from "node:path";
import { fixManifests } from "../src/domain/manifest-fix.js";
import { scanManifests } from "../src/domain/scan.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
const snapshot = new KbSnapshot(await loadKbDirectory(path.resolve("kb")), {
  revision: 1,
  lastImportAt: null,
});
const part = (i: number) =>
  i % 5 === 0
    ? `apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: a-${i}\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: a}\n`
    : `apiVersion: v1\nkind: Service\nmetadata:\n  name: s-${i}\nspec:\n  ports:\n  - port: 80\n`;
for (const n of [12800]) {
  const text = Array.from({ length: n }, (_, i) => part(i)).join("---\n");
  let t = Date.now();
  scanManifests(snapshot, text, "1.25");
  const s = Date.now() - t;
  t = Date.now();
  fixManifests(snapshot, text, "1.25");
  console.log(n, text.length, "scan", s, "fix", Date.now() - t);
}
