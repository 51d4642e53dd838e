/**
 * The corpus itself: large enough, every case distinct, and every case
 * stating the answer it must get (a 4xx with a stable code, or what a
 * success must hold).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GRAPHQL_CASES, PROBES } from "./graphql-cases.js";
import { HTTP_CASES } from "./http-cases.js";
import type { HostileCase } from "./support.js";
import { YAML_CASES } from "./yaml-cases.js";

const CORPUS: Readonly<Record<string, Readonly<Record<string, readonly HostileCase[]>>>> = {
  "HTTP/REST": HTTP_CASES,
  GraphQL: GRAPHQL_CASES,
  YAML: YAML_CASES,
};

describe("the hostile corpus", () => {
  it("holds at least 150 distinct cases", (context) => {
    let total = 0;
    for (const [area, categories] of Object.entries(CORPUS)) {
      const count =
        Object.values(categories).reduce((sum, cases) => sum + cases.length, 0) +
        (area === "GraphQL" ? 2 * PROBES.length : 0);
      context.diagnostic(
        `${area}: ${count} cases (${Object.entries(categories)
          .map(([name, cases]) => `${name} ${cases.length}`)
          .join(", ")})`,
      );
      total += count;
    }
    context.diagnostic(`total: ${total}`);
    assert.ok(total >= 150, `${total} cases`);
  });

  it("names every case once within its category (the same trouble may be sent to several faces)", () => {
    for (const [area, categories] of Object.entries(CORPUS)) {
      for (const [category, cases] of Object.entries(categories)) {
        const names = cases.map((hostile) => hostile.name);
        const repeated = names.filter((name, index) => names.indexOf(name) !== index);
        assert.deepEqual(repeated, [], `${area}, ${category}`);
      }
    }
  });

  it("gives every case an expected answer that can fail", () => {
    for (const categories of Object.values(CORPUS)) {
      for (const hostile of Object.values(categories).flat()) {
        if (hostile.code === null) {
          assert.ok(
            hostile.status >= 200 && hostile.status < 300 && hostile.check !== undefined,
            hostile.name,
          );
        } else {
          assert.match(hostile.code, /^[A-Z_]+$/, hostile.name);
          // GraphQL answers resolver errors with 200 and the code in extensions.code; everything else is a 4xx.
          assert.ok(
            (hostile.status >= 400 && hostile.status < 500) ||
              (hostile.status === 200 && hostile.path.startsWith("/graphql")),
            hostile.name,
          );
        }
      }
    }
  });
});
