/**
 * What every chat answer is written with: findings as lines with their
 * severity and source, the count of findings in words, a component as
 * people write it, an API removal as a line, and the knowledge-base revision
 * each answer names. The answers, one run* function per command, are grouped
 * by what they answer: check-answers.ts (check, node pool), plan-answers.ts
 * (plan, upgrade), scan-answers.ts (manifests and what runs in a cluster),
 * knowledge-answers.ts (removals, ports, flows, impact, skew) and
 * release-answers.ts (supported, release, coverage). No compatibility rule
 * lives here: every verdict, step and finding comes from src/domain; these
 * modules only write sentences.
 */
import type { ComponentVersionInput } from "../domain/cluster-plan.js";
import type { Finding, Severity } from "../domain/findings.js";
import type { ApiRemovalRecord } from "../knowledge/records.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { firstOf, type Inline, type Line, type ReplySection } from "./reply.js";

const SEVERITY_EMOJI: Readonly<Record<Severity, string>> = {
  ERROR: "🔴",
  WARNING: "⚠️",
  INFO: "ℹ️",
};

export function revision(snapshot: KbSnapshot): string {
  return `kb revision ${snapshot.revision}`;
}

export function sourceLink(url: string | null): Inline[] {
  return url === null ? [] : [" (", { link: url, label: "source" }, ")"];
}

function findingLine(entry: Finding): Line {
  return [
    `${SEVERITY_EMOJI[entry.severity]} `,
    { code: entry.code },
    ` ${entry.message}`,
    ...sourceLink(entry.sourceUrl),
  ];
}

export function findingsSection(findings: readonly Finding[], title = "Findings"): ReplySection {
  const { shown, omitted } = firstOf(findings);
  return { title, style: "bullets", lines: shown.map(findingLine), omitted };
}

export function countWords(findings: readonly Finding[]): string {
  const count = (severity: Severity): number =>
    findings.filter((entry) => entry.severity === severity).length;
  const parts = [
    [count("ERROR"), "error"],
    [count("WARNING"), "warning"],
    [count("INFO"), "note"],
  ] as const;
  const words = parts
    .filter(([n]) => n > 0)
    .map(([n, word]) => `${n} ${word}${n === 1 ? "" : "s"}`);
  return words.length === 0 ? "no findings" : words.join(", ");
}

/** `kubelet@pool-b 1.26`, with the canonical name when the alias is known. */
export function componentWords(snapshot: KbSnapshot, input: ComponentVersionInput): string {
  const name = snapshot.findComponent(input.component)?.name ?? input.component;
  return `${input.instance ? `${name}@${input.instance}` : name} ${input.version}`;
}

export function removalLine(removal: ApiRemovalRecord): Line {
  const replacement: Inline[] =
    removal.replacement === null ? [" → no replacement"] : [" → ", { code: removal.replacement }];
  return [
    { code: removal.apiVersion },
    ` ${removal.kind}`,
    ...replacement,
    ` (removed in ${removal.removedIn})`,
    ...sourceLink(removal.sourceUrl),
  ];
}
