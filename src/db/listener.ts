/**
 * A dedicated PostgreSQL connection that LISTENs on a channel and calls back
 * on each NOTIFY. Reconnects by itself (with a growing pause, at most 5 s)
 * when the connection drops, so replicas pick up changes again once the
 * database is back; missed notifications are covered by the caller's
 * periodic check, and `onNotify(undefined)` after every (re)connection.
 * `onLost` tells the caller at once when the connection drops or a
 * reconnection fails, so it can check the database instead of waiting for
 * its next poll; `reconnectNow` lets it skip the pause once it knows the
 * database answers again.
 */
import pg from "pg";
import type { Logger } from "../core/logger.js";

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;

export class ChangeListener {
  private client: pg.Client | undefined;
  private connecting = false;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotify: (payload: string | undefined) => void,
    private readonly logger: Logger,
    private readonly onLost: () => void = () => undefined,
  ) {}

  /** Resolves once listening (or once the first attempt failed; it keeps retrying). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Connects at once when not listening (the database is known to answer again), instead of after the pause. */
  reconnectNow(): void {
    if (this.stopped || this.client !== undefined || this.connecting) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.retryMs = FIRST_RETRY_MS;
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.connecting || this.client !== undefined) return;
    this.connecting = true;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    client.on("notification", (message) => {
      if (message.channel === this.channel) this.onNotify(message.payload);
    });
    client.on("error", (error) => {
      if (this.client === client)
        this.logger.warn({ err: error }, "change listener connection failed; reconnecting");
      this.lost(client);
    });
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    } catch (error) {
      this.connecting = false;
      await client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn(
        { err: error, retryMs: this.retryMs },
        "cannot listen for knowledge-base changes yet",
      );
      this.lost(client);
      return;
    }
    this.connecting = false;
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    this.logger.debug({ channel: this.channel }, "listening for knowledge-base changes");
    // A change may have been committed while we were not listening.
    this.onNotify(undefined);
  }

  /** The connection `client` dropped or never came up: tell the caller once, and try again after a pause. */
  private lost(client: pg.Client): void {
    if (this.stopped) return;
    if (this.client === client) {
      this.client = undefined;
    } else if (this.client !== undefined || this.connecting) {
      // An old client ending late, while a newer one is listening or connecting.
      return;
    }
    if (this.timer !== undefined) return;
    this.onLost();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }
}
