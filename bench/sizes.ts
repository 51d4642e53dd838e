/**
 * `npx tsx bench/sizes.ts` (or BENCH_ONLY=sizes npm run bench): the bytes of the full JSON answer and of its
 * summary (src/domain/answer-summary.ts, issue 38) for the questions the bench asks. Sizes do not depend on
 * timing, so they are computed in process against kb/, with no server; the REST answer is the same JSON.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { summariseAnswer, type OperationAnswer } from "../src/domain/answer-summary.js";
import { scanManifests } from "../src/domain/scan.js";
import { planUpgrade } from "../src/domain/upgrade.js";
import { validateCluster } from "../src/domain/validate.js";
import { loadKbDirectory } from "../src/knowledge/load.js";
import { KbSnapshot } from "../src/knowledge/snapshot.js";
import { PLAN, UPGRADE, manifest } from "./questions.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export async function answerSizes(): Promise<string> {
  const snapshot = new KbSnapshot(await loadKbDirectory(path.join(ROOT, "kb")), {
    revision: 1,
    lastImportAt: null,
  });
  const asOf = PLAN.asOf;
  const questions: Array<readonly [string, () => OperationAnswer]> = [
    ["validate (12 components)", () => validateCluster(snapshot, PLAN.components, { asOf })],
    [
      "upgrade plan (1.25 -> 1.30, 3 pools)",
      () => planUpgrade(snapshot, UPGRADE.current.components, UPGRADE.targetVersion, { asOf }),
    ],
    [
      "scan (1 MB manifest, target 1.29)",
      () => scanManifests(snapshot, manifest(1_000_000), "1.29"),
    ],
  ];
  const rows = questions.map(([name, ask]) => {
    const answer = ask();
    const full = Buffer.byteLength(JSON.stringify(answer));
    const summary = Buffer.byteLength(JSON.stringify(summariseAnswer(answer)));
    return `| ${name} | ${answer.status} | ${full.toLocaleString("en")} | ${summary.toLocaleString("en")} | ${(full / summary).toFixed(0)}x |`;
  });
  return [
    `answer sizes (kb/ as it is, asOf ${asOf}):`,
    "",
    "| question | status | full answer, bytes | summary, bytes | ratio |",
    "|---|---|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n");
}

if (
  process.argv[1] !== undefined &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
)
  process.stdout.write(`${await answerSizes()}\n`);
