/**
 * A TCP proxy between the service and a real PostgreSQL, for faults that
 * cannot be timed from outside: it reads the client's side of the wire
 * protocol for a COMMIT (the simple-query message `Q` "COMMIT", or a
 * simple query of several statements that ends with "; COMMIT", as the
 * edit group commit sends it), and can
 * cut that connection just before the COMMIT reaches the server (the
 * transaction rolls back) or just after the server's answer to it (the
 * transaction committed, the client never hears so). It can also go down
 * as a whole: every connection cut, new ones refused.
 */
import net from "node:net";

/** `Q`, length 11 (4 + "COMMIT\0"), "COMMIT\0". */
const COMMIT_MESSAGE = Buffer.concat([
  Buffer.from("Q"),
  Buffer.from([0, 0, 0, 11]),
  Buffer.from("COMMIT\0"),
]);
/** The end of a simple query whose last statement is the COMMIT (the end of its message is in the chunk that sends it). */
const COMMIT_AT_END = Buffer.from("; COMMIT\0");

/** In the edit group commit's answer when its condition failed and it wrote nothing (the error its statement raises). */
const DECLINED = Buffer.from("declined");

function sendsCommit(chunk: Buffer): boolean {
  return chunk.includes(COMMIT_MESSAGE) || chunk.includes(COMMIT_AT_END);
}

/**
 * drop-before-commit: the COMMIT never reaches the server; drop-after-commit:
 * the server commits, its answer is withheld and the connection cut;
 * down-after-commit: the answer gets through, then the proxy goes down.
 */
export type CommitFault = "none" | "drop-before-commit" | "drop-after-commit" | "down-after-commit";

export interface PgProxy {
  readonly url: string;
  /** The fault for the next COMMIT (then back to "none"). */
  failNextCommit(fault: CommitFault): void;
  /** Cuts every connection and refuses new ones until `up()`. */
  down(): void;
  up(): void;
  /** How many COMMITs the proxy saw reach the server. */
  readonly commitsForwarded: number;
  close(): Promise<void>;
}

export async function startPgProxy(upstreamUrl: string): Promise<PgProxy> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<net.Socket>();
  let fault: CommitFault = "none";
  let isDown = false;
  let commitsForwarded = 0;

  const server = net.createServer((client) => {
    if (isDown) {
      client.destroy();
      return;
    }
    const server = net.connect(Number(upstream.port || 5432), upstream.hostname);
    sockets.add(client);
    sockets.add(server);
    const cut = (): void => {
      client.destroy();
      server.destroy();
    };
    let onNextAnswer: "cut" | "down" | undefined;
    let armed: CommitFault = "none";
    client.on("data", (chunk: Buffer) => {
      if (sendsCommit(chunk) && fault !== "none") {
        const now = fault;
        fault = "none";
        if (now === "drop-before-commit") {
          cut();
          return;
        }
        armed = now;
        onNextAnswer = now === "drop-after-commit" ? "cut" : "down";
      }
      if (sendsCommit(chunk)) commitsForwarded += 1;
      server.write(chunk);
    });
    server.on("data", (chunk: Buffer) => {
      if (onNextAnswer !== undefined && chunk.includes(DECLINED)) {
        // An edit group whose condition failed committed nothing: the fault waits for the COMMIT that writes.
        onNextAnswer = undefined;
        fault = armed;
      }
      if (onNextAnswer === "cut") {
        // The server has answered the COMMIT: it is durable, and the client will never know.
        cut();
        return;
      }
      client.write(chunk);
      if (onNextAnswer === "down") {
        onNextAnswer = undefined;
        setImmediate(() => proxy.down());
      }
    });
    for (const socket of [client, server]) {
      socket.on("error", cut);
      socket.on("close", () => {
        sockets.delete(socket);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(upstreamUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);

  const proxy: PgProxy = {
    url: url.toString(),
    failNextCommit(next) {
      fault = next;
    },
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isDown = false;
    },
    get commitsForwarded() {
      return commitsForwarded;
    },
    async close() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
