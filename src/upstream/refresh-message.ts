/**
 * What the scheduled refresh says once it has read its sources: one message,
 * for the log and for the webhook (a Slack incoming webhook, or anything that
 * takes {"text": ...}), that names what was filed per source, what failed and
 * where a reviewer works the queue.
 */
import type { RefreshReport } from "./scheduled-refresh.js";

const WEBHOOK_TIMEOUT_MS = 10_000;

export function refreshMessage(report: RefreshReport): string {
  const filed = report.sources.reduce((sum, source) => sum + source.filed, 0);
  const read = report.sources.filter((source) => source.ok);
  const failed = report.sources.filter((source) => !source.ok);
  const parts = [
    `kubecompat knowledge refresh: ${filed} new proposal${filed === 1 ? "" : "s"} for review` +
      (read.length === 0
        ? ""
        : ` (${read.map((source) => `${source.source} ${source.filed}, at ${source.revision ?? "?"}`).join("; ")})`) +
      (report.proposalsOpen === null ? "." : `; ${report.proposalsOpen} open in all.`),
  ];
  for (const source of failed)
    parts.push(
      `${source.source} could not be read (${source.url}): ${source.message ?? "unknown"}.`,
    );
  if (filed > 0 || (report.proposalsOpen ?? 0) > 0)
    parts.push(
      "Review them with GET /api/v1/proposals, `proposals` in chat, or the page's review queue.",
    );
  return parts.join(" ");
}

/** Posts the message; answers what went wrong (null when the webhook took it), never throws. */
export async function sendWebhook(url: string, text: string): Promise<string | null> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    return response.ok ? null : `it answered ${response.status}`;
  } catch (error) {
    return (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
  }
}
