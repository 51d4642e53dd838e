/**
 * A small fleet for the tests of the fleet page, registered over REST with an
 * editor's token as teams register theirs (states as components, as in
 * test/fleet.test.ts), and readers of the page's HTML: a cluster's row, a
 * cell of it, its text without tags.
 */
import assert from "node:assert/strict";
import type { Express } from "express";
import request from "supertest";

/** A label value and an owner a page must escape, not run. */
export const HOSTILE_LABEL = `<script>alert("x")</script> & more`;
export const HOSTILE_OWNER = "R&D <data>";

export interface Registration {
  readonly name: string;
  readonly environment: string;
  readonly owner: string;
  readonly labels: Record<string, string>;
  readonly platform: string;
  readonly components: ReadonlyArray<{ component: string; version: string; instance?: string }>;
}

const cluster = (
  name: string,
  environment: string,
  owner: string,
  labels: Record<string, string>,
  platform: string,
  apiserver: string,
  kubelet = apiserver,
): Registration => ({
  name,
  environment,
  owner,
  labels,
  platform,
  components: [
    { component: "kube-apiserver", version: apiserver },
    { component: "kubelet", version: kubelet, instance: "pool-a" },
  ],
});

/**
 * On 2026-12-06: pay-prod's EKS 1.32 is past its standard support (extended), data-prod has a kubelet
 * four minors behind (UNSUPPORTED), web-staging runs a current minor, ml-staging carries the hostile label.
 */
export const PAGE_FLEET: readonly Registration[] = [
  cluster("pay-dev", "dev", "team-pay", { team: "payments" }, "eks", "v1.32.9-eks-113cf36"),
  cluster("pay-prod", "prod", "team-pay", { team: "payments" }, "eks", "v1.32.9-eks-113cf36"),
  cluster("web-staging", "staging", "team-web", { team: "web" }, "eks", "v1.35.1-eks-3025e55"),
  cluster("web-prod", "prod", "team-web", { team: "web" }, "eks", "v1.34.2-eks-b1b1f8b"),
  cluster("data-prod", "prod", HOSTILE_OWNER, { team: "data" }, "upstream", "1.34.2", "1.30.4"),
  cluster(
    "ml-staging",
    "staging",
    "team-ml",
    { team: "ml", note: HOSTILE_LABEL },
    "gke",
    "1.33.5-gke.1080000",
  ),
];

export async function registerFleet(
  app: Express,
  editor: string,
  fleet: readonly Registration[] = PAGE_FLEET,
): Promise<void> {
  for (const registration of fleet) {
    const answer = await request(app)
      .post("/api/v1/clusters")
      .set({ Authorization: `Bearer ${editor}` })
      .send(registration);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
  }
}

/** A cluster as GET /api/v1/clusters lists it (the fields the page shows). */
export interface ListedCluster {
  name: string;
  environment: string;
  owner: string;
  labels: Record<string, string>;
  daysLeft: number | null;
  daysToStart: number | null;
  judgement: {
    status: string;
    judgedStatus: string;
    kbRevision: number;
    asOf: string;
    controlPlane: string | null;
    platform: string | null;
    deadline: string | null;
    blocking: Array<{ code: string; message: string; sourceUrl: string | null }>;
    waived: Array<{ finding: { code: string } }>;
    upgrade: { hops: number; targetVersion: string } | null;
    startBy: { latestStart: string } | null;
  };
}

export async function listed(app: Express, query = ""): Promise<ListedCluster[]> {
  const answer = await request(app).get(`/api/v1/clusters${query}`).expect(200);
  return answer.body.items as ListedCluster[];
}

/** Whether the page should show a start date for the cluster: only when an upgrade is due, as the calendar feed. */
export function upgradeDue(cluster: ListedCluster): boolean {
  return cluster.judgement.startBy !== null && (cluster.judgement.upgrade?.hops ?? 0) > 0;
}

/** The HTML of a cluster's row on the page. */
export function rowOf(html: string, name: string): string {
  const row = new RegExp(`<tr id="cluster-${name}"[\\s\\S]*?</tr>`).exec(html)?.[0];
  assert.ok(row, `the page has a row for ${name}`);
  return row;
}

/** A cell of a row by its class: its attributes and its HTML. */
export function cellOf(row: string, name: string): { attributes: string; html: string } {
  const match = new RegExp(`<td class="${name}( [^"]*)?"([^>]*)>([\\s\\S]*?)</td>`).exec(row);
  assert.ok(match, `the row has a ${name} cell: ${row}`);
  return { attributes: match[2]!, html: match[3]! };
}

export function attribute(attributes: string, name: string): string | undefined {
  return new RegExp(`${name}="([^"]*)"`).exec(attributes)?.[1];
}

/** Text as a reader sees it: tags out, the five escapes read back. */
export function textOf(html: string): string {
  return html
    .replace(/<br>/g, " ")
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}
