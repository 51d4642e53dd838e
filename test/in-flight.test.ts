/**
 * The responses in flight that the server drains at shutdown (src/http/in-flight.ts): exactly those not
 * closed yet, however many come and go, and a closed one is not kept alive by the tracker (a Set was: its
 * dropped tables carried every response into the old space). Plain EventEmitters stand in for responses:
 * the tracker only listens for "close" (the drain itself is tested over HTTP in test/npm-start.test.ts).
 * A Set would pass these tests too: what it cost shows only in the young generation's collections, whose
 * effect `npm run bench` measures; a full collection, as here, sees through it.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, it } from "node:test";
import { ResponsesInFlight } from "../src/http/in-flight.js";
import { collectGarbage } from "./support/collect.js";

function response(name: string): ServerResponse {
  return Object.assign(new EventEmitter(), { name }) as unknown as ServerResponse;
}

const nameOf = (res: ServerResponse): string => (res as unknown as { name: string }).name;

describe("responses in flight", () => {
  it("holds each response from its add to its close, through growing past its first slots", () => {
    const inFlight = new ResponsesInFlight();
    const all = Array.from({ length: 200 }, (_, index) => response(`r${index}`));
    for (const res of all) inFlight.add(res);
    assert.equal(inFlight.size, 200);
    for (const res of all.filter((_, index) => index % 3 !== 0)) res.emit("close");
    const open = all.filter((_, index) => index % 3 === 0).map(nameOf);
    assert.equal(inFlight.size, open.length);
    assert.deepEqual([...inFlight].map(nameOf).sort(), [...open].sort());
    // Freed slots are used again: 150 more fit without losing the open ones.
    const more = Array.from({ length: 150 }, (_, index) => response(`s${index}`));
    for (const res of more) inFlight.add(res);
    assert.deepEqual([...inFlight].map(nameOf).sort(), [...open, ...more.map(nameOf)].sort());
    for (const res of [...all, ...more]) res.emit("close");
    assert.equal(inFlight.size, 0);
    assert.deepEqual([...inFlight], []);
  });

  it("keeps no closed response alive", async () => {
    const inFlight = new ResponsesInFlight();
    const refs = ((): { closed: Array<WeakRef<object>>; open: Array<WeakRef<object>> } => {
      // Enough adds and closes for any table to be rebuilt several times, a few left open.
      const closed: Array<WeakRef<object>> = [];
      const open: Array<WeakRef<object>> = [];
      for (let index = 0; index < 300; index += 1) {
        const res = response(`r${index}`);
        inFlight.add(res);
        if (index % 100 === 0) open.push(new WeakRef(res));
        else {
          res.emit("close");
          closed.push(new WeakRef(res));
        }
      }
      return { closed, open };
    })();
    await collectGarbage();
    assert.equal(
      refs.closed.filter((ref) => ref.deref() !== undefined).length,
      0,
      "closed responses still reachable",
    );
    assert.equal(
      refs.open.filter((ref) => ref.deref() !== undefined).length,
      3,
      "the open ones are still held",
    );
    assert.equal(inFlight.size, 3);
  });
});
