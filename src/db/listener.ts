/**
 * A dedicated PostgreSQL connection that LISTENs on a channel and calls back
 * on each NOTIFY. Reconnects by itself (with a growing pause) when the
 * connection drops, so replicas pick up changes again once the database is
 * back; missed notifications are covered by the caller's periodic check.
 */
import pg from "pg";
import type { Logger } from "../logger.js";

export class ChangeListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private retryMs = 500;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotify: (payload: string | undefined) => void,
    private readonly logger: Logger,
  ) {}

  /** Resolves once listening (or once the first attempt failed; it keeps retrying). */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client.on("notification", (message) => {
      if (message.channel === this.channel) this.onNotify(message.payload);
    });
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "change listener connection failed; reconnecting");
      this.reconnectLater(client);
    });
    client.on("end", () => this.reconnectLater(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
      this.client = client;
      this.retryMs = 500;
      // A change may have been committed while we were not listening.
      this.onNotify(undefined);
    } catch (error) {
      this.logger.warn({ err: error, retryMs: this.retryMs }, "cannot listen for knowledge-base changes yet");
      await client.end().catch(() => undefined);
      this.reconnectLater(client);
    }
  }

  private reconnectLater(client: pg.Client): void {
    if (this.stopped) return;
    if (this.client === client) this.client = undefined;
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
  }
}
