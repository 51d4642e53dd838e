/**
 * Findings and verdicts, the vocabulary every answer is written in. The codes
 * and checks come from the one table in src/domain/findings.ts, so the
 * document lists exactly the codes the domain core emits.
 */
import { FINDING_CHECKS, FINDING_CODES, type FindingCheck } from "../../domain/findings.js";
import { z } from "./openapi-zod.js";

export const severity = z.enum(["ERROR", "WARNING", "INFO"]).openapi("Severity");
/** Every code with its check and meaning, from the one table in src/domain/findings.ts. */
const codeList = Object.entries(FINDING_CODES)
  .map(([code, { check, description }]) => `- \`${code}\` (${check}): ${description}`)
  .join("\n");
const findingCheck = z
  .enum(Object.keys(FINDING_CHECKS) as [FindingCheck, ...FindingCheck[]])
  .openapi("FindingCheck", {
    description: `What kind of check found a finding:\n${Object.entries(FINDING_CHECKS)
      .map(([check, description]) => `- \`${check}\`: ${description}`)
      .join("\n")}`,
  });
export const finding = z
  .object({
    code: z.string().openapi({
      description: `Stable identifier that bots branch on (messages may be reworded). SKEW_COMPONENT_* stand for the codes built with a component's name, e.g. SKEW_KUBELET_TOO_OLD_FOR_APISERVER.\n${codeList}`,
      example: "SKEW_KUBELET_TOO_OLD_FOR_APISERVER",
    }),
    check: findingCheck,
    severity,
    component: z.string().nullable(),
    instance: z.string().nullable(),
    message: z.string(),
    sourceUrl: z.string().nullable(),
    ruleId: z.string().nullable(),
  })
  .openapi("Finding");
/** What a report means, as people read it. */
export const verdict = z
  .enum(["SUPPORTED", "SUPPORTED_WITH_WARNINGS", "UNSUPPORTED", "NOT_JUDGED"])
  .openapi("Verdict", {
    description:
      "SUPPORTED (no ERROR, no WARNING), SUPPORTED_WITH_WARNINGS, UNSUPPORTED (any ERROR) or NOT_JUDGED (the question could not be checked, e.g. no kube-apiserver named). A version past its end of life is a WARNING, so it is never plain SUPPORTED.",
  });
export const okField = z
  .boolean()
  .openapi({ description: "True only for SUPPORTED and SUPPORTED_WITH_WARNINGS." });
