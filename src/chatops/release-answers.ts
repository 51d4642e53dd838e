/**
 * The answers about Kubernetes releases and the knowledge base's reach:
 * which minors are supported on a day (and whether one is), a release's
 * dates, latest patch and etcd, and through which minor each kind of
 * knowledge goes.
 */
import { getRelease } from "../domain/catalog.js";
import { today } from "../domain/days.js";
import { newestReleasedOn, releaseStatus, supportedReleases } from "../domain/release-status.js";
import { parseAsOf } from "../domain/validate.js";
import { NotFoundError } from "../core/errors.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { revision, sourceLink } from "./answers.js";
import type { ChatCommand, RunOptions } from "./chat-command.js";
import type { ChatReplyDoc, Line } from "./reply.js";

export function runSupported(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "supported" }>,
  options: RunOptions,
): ChatReplyDoc {
  const asOf = parseAsOf(command.asOf ?? options.asOf, "asof");
  const supported = supportedReleases(snapshot, asOf);
  const range =
    supported.length === 0
      ? "no minor is supported"
      : `supported: ${supported[0]!.version} to ${supported[supported.length - 1]!.version}`;
  if (command.version === undefined) {
    return {
      headline: `📅 Kubernetes on ${asOf}`,
      sections: [{ style: "plain", lines: [[range]] }],
      context: [revision(snapshot)],
    };
  }
  const release = getRelease(snapshot, command.version, asOf);
  const { status } = releaseStatus(snapshot, release, asOf);
  const words: Record<typeof status, string> = {
    SUPPORTED: `✅ ${release.version} is supported on ${asOf}${release.endOfStandardSupport === null ? "" : ` (standard support until ${release.endOfStandardSupport})`}`,
    MAINTENANCE: `⚠️ ${release.version} is in maintenance on ${asOf}: critical fixes only, end of life ${release.endOfLife ?? "not set"}`,
    END_OF_LIFE: `❌ ${release.version} is past its end of life (${release.endOfLife ?? "?"}) on ${asOf}`,
    NOT_YET_RELEASED: `🕒 ${release.version} is not released yet on ${asOf} (planned ${release.releaseDate})`,
    UNKNOWN: `❔ ${release.version}: the release calendar has no support dates for it`,
  };
  return {
    headline: words[status],
    sections: [
      { style: "plain", lines: [[range], [{ link: release.sourceUrl, label: "Source" }]] },
    ],
    context: [revision(snapshot)],
  };
}

export function runCoverage(snapshot: KbSnapshot): ChatReplyDoc {
  const lines: Line[] = snapshot.coverage.map((claim) => [
    { bold: `${claim.knowledge}:` },
    ` through ${claim.throughMinor}${claim.stage === "PRERELEASE" ? " (pre-release)" : ""} from ${claim.source}${claim.sourceRevision === null ? "" : ` @ ${claim.sourceRevision}`}${claim.sourceDate === null ? "" : ` (${claim.sourceDate})`} `,
    { link: claim.sourceUrl, label: "source" },
  ]);
  return {
    headline: "🧭 Where the knowledge ends",
    sections: [
      { style: "plain", lines: lines.length > 0 ? lines : [["No coverage is recorded."]] },
      {
        style: "plain",
        lines: [
          [
            "A question about a minor beyond these gets a KNOWLEDGE_EDGE warning (KNOWLEDGE_STALE once that minor is out).",
          ],
        ],
      },
    ],
    context: [revision(snapshot)],
  };
}

export function runRelease(
  snapshot: KbSnapshot,
  command: Extract<ChatCommand, { kind: "release" }>,
): ChatReplyDoc {
  const version = command.version ?? newestReleasedOn(snapshot, today())?.version;
  if (version === undefined) throw new NotFoundError("the knowledge base holds no release yet");
  const release = getRelease(snapshot, version);
  const unknown = "not published";
  const lines: Line[] = [
    [{ bold: "Released:" }, ` ${release.releaseDate}`],
    [{ bold: "End of standard support:" }, ` ${release.endOfStandardSupport ?? unknown}`],
    [{ bold: "End of life:" }, ` ${release.endOfLife ?? unknown}`],
    [
      { bold: "Latest patch:" },
      ` ${release.latestPatch ?? unknown}${release.latestPatchDate === null ? "" : ` (${release.latestPatchDate})`}`,
    ],
  ];
  if (release.etcdVersion !== null)
    lines.push([
      { bold: "etcd (kubeadm default):" },
      ` ${release.etcdVersion}`,
      ...sourceLink(release.etcdSourceUrl),
    ]);
  lines.push([{ link: release.sourceUrl, label: "Source" }]);
  return {
    headline: `📅 Kubernetes ${release.version}`,
    sections: [{ style: "plain", lines }],
    context: [revision(snapshot)],
  };
}
