/**
 * Sending answers over REST through the AnswerCache: a question asked before
 * (same route, query string, Content-Type and body bytes, same day) gets the
 * JSON text computed the first time, without parsing, judging or serialising
 * again, as long as the snapshot in force holds every part of the knowledge
 * the answer was made from (src/knowledge/snapshot-reads.ts). The revision in
 * the text is the one in force when it is sent.
 */
import type { Request, RequestHandler, Response } from "express";
import type { AnswerCache } from "../services/answer-cache.js";
import type { KnowledgeBase } from "../services/knowledge-base.js";
import type { KbSnapshot } from "../knowledge/snapshot.js";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { today } from "../domain/validate.js";
import { STAND_IN_TEXT, holdsStandIn, watched } from "../knowledge/snapshot-reads.js";

/** A serialised answer and the findings in it, so a repeated answer still counts in the metrics. */
export interface SentAnswer {
  /**
   * The JSON as bytes, in the pieces it is sent in (one for most answers; a large one in chunks). Each piece
   * is cut where the revision goes (an answer made through a watching view names the revision it is sent
   * under, src/knowledge/snapshot-reads.ts), so one copy serves every revision and goes out as it is.
   */
  readonly pieces: ReadonlyArray<readonly Buffer[]>;
  readonly findings: ReadonlyArray<{ readonly code: string; readonly severity: string }>;
}

/** Where a text made through a view names the revision (src/knowledge/snapshot-reads.ts), as bytes. */
const STAND_IN = Buffer.from(STAND_IN_TEXT);

/**
 * A JSON text as the bytes of a piece, cut where the revision goes when it was made through a view. The
 * bytes are allocated on their own (a small Buffer.from() shares an 8 KiB slab with whatever was allocated
 * around it, and a long-kept answer would keep the whole slab); the cuts are views of them.
 */
function pieceOf(text: string, throughView: boolean): Buffer[] {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  if (!throughView) return [bytes];
  const cuts: Buffer[] = [];
  let from = 0;
  for (let at = bytes.indexOf(STAND_IN); at >= 0; at = bytes.indexOf(STAND_IN, from)) {
    cuts.push(bytes.subarray(from, at));
    from = at + STAND_IN.length;
  }
  cuts.push(bytes.subarray(from));
  return cuts;
}

/** The JSON texts of an answer as pieces to send. */
function piecesOf(json: readonly string[], throughView: boolean): Buffer[][] {
  return json.map((text) => pieceOf(text, throughView));
}

/** What an answer costs to remember: its bytes, and a little for each Buffer. */
function sizeOf(answer: SentAnswer): number {
  return answer.pieces.reduce(
    (sum, piece) =>
      piece.reduce(
        (bytes, cut) => bytes + cut.length + 64,
        sum + STAND_IN.length * (piece.length - 1),
      ),
    0,
  );
}

export type FindingsSink = (
  findings: ReadonlyArray<{ readonly code: string; readonly severity: string }>,
) => void;

/** Questions larger than this (a big manifest) are answered but not remembered. */
export const MAX_REMEMBERED_QUESTION_BYTES = 64 * 1024;

const rawBodies = new WeakMap<Request, Buffer>();

/** body-parser's `verify` hook: keeps the bytes of a JSON body (after any Content-Encoding) as the cache key. */
export function rememberRawBody(req: Request, buffer: Buffer): void {
  if (buffer.length <= MAX_REMEMBERED_QUESTION_BYTES) rawBodies.set(req, buffer);
}

const JSON_TYPE = "application/json; charset=utf-8";

/** Writes a piece with the revision between its cuts, in one go to the socket. */
function writePiece(res: Response, piece: readonly Buffer[], revision: Buffer): boolean {
  res.cork();
  let more = true;
  piece.forEach((cut, index) => {
    if (index > 0) more = res.write(revision) && more;
    more = res.write(cut) && more;
  });
  res.uncork();
  return more;
}

/** The revision in force as bytes, made once per revision rather than once per answer sent. */
let revisionText: { readonly revision: number; readonly bytes: Buffer } = {
  revision: -1,
  bytes: Buffer.alloc(0),
};

function revisionBytesOf(revision: number): Buffer {
  if (revisionText.revision !== revision)
    revisionText = { revision, bytes: Buffer.from(String(revision)) };
  return revisionText.bytes;
}

async function send(
  res: Response,
  answer: SentAnswer,
  revision: number,
  onFindings: FindingsSink | undefined,
): Promise<void> {
  if (onFindings && answer.findings.length > 0) onFindings(answer.findings);
  const revisionBytes = revisionBytesOf(revision);
  const length = answer.pieces.reduce(
    (sum, piece) =>
      piece.reduce(
        (bytes, cut) => bytes + cut.length,
        sum + (piece.length - 1) * revisionBytes.length,
      ),
    0,
  );
  res.setHeader("Content-Type", JSON_TYPE);
  res.setHeader("Content-Length", String(length));
  const [first, ...rest] = answer.pieces;
  if (first === undefined) {
    res.end();
    return;
  }
  if (rest.length === 0) {
    if (first.length === 1) res.end(first[0]);
    else {
      writePiece(res, first, revisionBytes);
      res.end();
    }
    return;
  }
  // A large answer goes out a piece at a time, with the event loop given back between pieces (and the
  // socket's buffer drained), instead of one multi-megabyte buffer at once.
  for (const piece of answer.pieces) {
    if (res.destroyed) return;
    if (writePiece(res, piece, revisionBytes)) await yieldToEventLoop();
    else await drained(res);
  }
  res.end();
}

/** Until the socket takes more (or the client has gone). */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Lists longer than this are serialised a chunk at a time, giving the event loop back between chunks. */
const SERIALISE_CHUNK = 1000;

/** Pieces joined into runs of about 64 KiB: few enough writes, none of them large. */
function joinSmall(parts: readonly string[]): string[] {
  const joined: string[] = [];
  let run: string[] = [];
  let length = 0;
  for (const part of parts) {
    run.push(part);
    length += part.length;
    if (length >= 64 * 1024) {
      joined.push(run.join(""));
      run = [];
      length = 0;
    }
  }
  if (run.length > 0) joined.push(run.join(""));
  return joined;
}

/**
 * The answer as JSON, the same text JSON.stringify gives. A large answer (a 10 MiB scan has tens of
 * thousands of findings, megabytes of JSON) is written a chunk of each long top-level list at a time, with
 * a pause between chunks, so that serialising it never holds other requests for long.
 */
async function serialise(result: unknown, throughView: boolean): Promise<SentAnswer> {
  const findings = (result as { findings?: unknown } | null)?.findings;
  const counted = Array.isArray(findings)
    ? findings.map(({ code, severity }: { code: string; severity: string }) => ({ code, severity }))
    : [];
  const fields =
    result !== null && typeof result === "object" && !Array.isArray(result)
      ? Object.entries(result)
      : [];
  if (!fields.some(([, value]) => Array.isArray(value) && value.length > SERIALISE_CHUNK))
    return { pieces: piecesOf([JSON.stringify(result)], throughView), findings: counted };
  const parts: string[] = [];
  for (const [key, value] of fields) {
    // JSON.stringify leaves out undefined and function values.
    if (value === undefined || typeof value === "function") continue;
    parts.push(`${parts.length === 0 ? "{" : ","}${JSON.stringify(key)}:`);
    if (!Array.isArray(value) || value.length <= SERIALISE_CHUNK) {
      parts.push(JSON.stringify(value));
      continue;
    }
    parts.push("[");
    for (let start = 0; start < value.length; start += SERIALISE_CHUNK) {
      const chunk = JSON.stringify(value.slice(start, start + SERIALISE_CHUNK));
      parts.push(`${start === 0 ? "" : ","}${chunk.slice(1, -1)}`);
      await yieldToEventLoop();
    }
    parts.push("]");
  }
  parts.push("}");
  return { pieces: piecesOf(joinSmall(parts), throughView), findings: counted };
}

/**
 * A check route (validate, plan, rollback, scan, node pools): `judge` parses
 * the request and asks the domain core; its answer is remembered when the
 * body was JSON small enough to be a key, judged through a watching view of
 * the snapshot so that it outlives edits of knowledge it did not read.
 * Answers without `asOf` depend on the day, so the day is part of the key.
 */
export function checkRoute(
  kb: KnowledgeBase,
  answers: AnswerCache<SentAnswer>,
  onFindings: FindingsSink | undefined,
  judge: (req: Request, snapshot: KbSnapshot) => unknown,
): RequestHandler {
  return async (req, res) => {
    const snapshot = kb.current();
    const raw = rawBodies.get(req);
    const key =
      raw === undefined
        ? undefined
        : `${req.method} ${req.originalUrl}\n${req.headers["content-type"] ?? ""}\n${today()}\n${raw.toString("latin1")}`;
    let answer = key === undefined ? undefined : answers.get(snapshot, key);
    if (answer === undefined) {
      const watch =
        key === undefined || !answers.enabled || holdsStandIn(key) ? undefined : watched(snapshot);
      // A judge may answer later (a large scan runs in slices, src/core/slices.ts); the snapshot stays the one it began with.
      answer = await serialise(await judge(req, watch?.view ?? snapshot), watch !== undefined);
      if (key !== undefined) answers.set(snapshot, key, answer, sizeOf(answer), watch?.reads());
    }
    await send(res, answer, snapshot.revision, onFindings);
  };
}

/**
 * A read route: `read` validates the query string and picks the records.
 * Answers carry the revision as a weak ETag (304 when the client has it);
 * the same URL is the same answer while the parts of the snapshot it read
 * stay the same.
 */
export function readRoute(
  kb: KnowledgeBase,
  answers: AnswerCache<SentAnswer>,
  read: (req: Request, snapshot: KbSnapshot) => unknown,
): RequestHandler {
  return async (req, res) => {
    const snapshot = kb.current();
    // The day is part of the key: `latest` and `oldest-supported` in a query string are read on the day.
    const key = `GET ${req.originalUrl}\n${today()}`;
    let answer = answers.get(snapshot, key);
    if (answer === undefined) {
      const watch = !answers.enabled || holdsStandIn(key) ? undefined : watched(snapshot);
      answer = {
        pieces: piecesOf([JSON.stringify(read(req, watch?.view ?? snapshot))], watch !== undefined),
        findings: [],
      };
      answers.set(snapshot, key, answer, sizeOf(answer), watch?.reads());
    }
    const etag = `W/"kb-${snapshot.revision}"`;
    res.setHeader("ETag", etag);
    res.setHeader("Cache-Control", "no-cache");
    const ifNoneMatch = req.headers["if-none-match"];
    if (
      ifNoneMatch !== undefined &&
      ifNoneMatch.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")
    ) {
      res.status(304).end();
      return;
    }
    await send(res, answer, snapshot.revision, undefined);
  };
}
