/**
 * A destination for a test's logger (pino's JSON lines) that keeps every
 * line as written and as parsed, for the test to read while it runs.
 */
import { Writable } from "node:stream";

export interface LogCapture<Entry extends object = Record<string, unknown>> {
  /** Where the logger writes. */
  readonly sink: Writable;
  /** Each line as written. */
  readonly raw: string[];
  /** Each line parsed. */
  readonly entries: Entry[];
}

export function captureLogs<Entry extends object = Record<string, unknown>>(): LogCapture<Entry> {
  const raw: string[] = [];
  const entries: Entry[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (!line.startsWith("{")) continue;
        raw.push(line);
        entries.push(JSON.parse(line) as Entry);
      }
      done();
    },
  });
  return { sink, raw, entries };
}
