import { classifyPg, loadPg } from './driver.js';
import { postgresKind } from './index.js';
import { decodePgOutput, formatLsn, streamedXid, type PgOutputMessage } from './pgoutput.js';

type PgClient = import('pg').Client;
/** pg keeps its protocol connection private: the replication stream needs its copy data and its socket. */
type Wire = NodeJS.EventEmitter & { stream: { pause(): void; resume(): void }; sendCopyFromChunk(b: Buffer): void };

/** Microseconds between the Unix epoch and 2000-01-01, PostgreSQL's epoch. */
const PG_EPOCH_US = 946_684_800_000_000n;
/** Draining, the server is asked for its WAL end at most this often (askEnd). */
const ASK_END_MS = 100;

export interface StreamEvents {
  /** A decoded pgoutput message and the WAL position of its record; inside a stream block, the (sub)transaction xid of a change. */
  message(msg: PgOutputMessage, walStart: bigint, xid?: number): void;
  /** The server's WAL end; it may ask for an answer. */
  keepalive(walEnd: bigint, replyRequested: boolean): void;
  /** The stream failed or ended. */
  failed(e: unknown): void;
}

/**
 * The streaming replication protocol over pg's replication connection: START_REPLICATION of a
 * logical slot with pgoutput, CopyData framing (XLogData 'w', keepalive 'k'), standby status
 * updates ('r'), and pausing the socket for backpressure.
 */
export class ReplicationStream {
  private client: PgClient | undefined;
  private wire: Wire | undefined;
  lastStatus = 0;
  private askedAt = 0;
  private askLater: NodeJS.Timeout | undefined;
  /** The slot was created on this connection (a temporary one is not created again by start). */
  private created = false;
  /** Standby status updates are CopyData: only once START_REPLICATION runs. */
  private streaming = false;
  /** Between a stream block's start and stop (protocol 2 streaming): changes carry their xid. */
  private inBlock = false;

  constructor(
    private readonly cfg: Record<string, unknown>,
    private readonly slot: string,
    private readonly publication: string,
    /** A slot that lives only as long as this connection (temporary_slot=true). */
    private readonly temporary: boolean,
    /** start_position: where streaming starts when later than the slot's confirmed position. */
    private readonly startLsn?: bigint,
    /** Ask for transactions in progress (protocol 2, PostgreSQL 14+) rather than each only once committed. */
    readonly inProgress = false,
  ) {}

  /** Connects (once); errors of the connection after that go to `failed`. */
  async connect(failed: (e: unknown) => void): Promise<void> {
    if (this.client) return;
    const pg = await loadPg();
    const client = new pg.Client({ ...this.cfg, replication: 'database' } as never);
    client.on('error', (e) => failed(e));
    try {
      await client.connect();
    } catch (e) {
      throw classifyPg(e, true);
    }
    this.client = client;
    this.wire = (client as unknown as { connection: Wire }).connection;
  }

  /** The backend pid of the replication connection (a stop cancels its slot creation with it). */
  get pid(): number | undefined {
    return (this.client as unknown as { processID?: number } | undefined)?.processID;
  }

  /**
   * Creates the slot on this connection. With `exportSnapshot`, returns the name of a snapshot that
   * sees exactly the rows the slot's stream does not: valid until this connection runs its next
   * command (START_REPLICATION), so the initial copy reads it first.
   */
  async createSlot(exportSnapshot: boolean): Promise<string | undefined> {
    const slot = postgresKind.dialect.quote(this.slot);
    const r = await this.client!.query(`CREATE_REPLICATION_SLOT ${slot}${this.temporary ? ' TEMPORARY' : ''} LOGICAL pgoutput ${exportSnapshot ? 'EXPORT_SNAPSHOT' : 'NOEXPORT_SNAPSHOT'}`);
    this.created = true;
    const row = r.rows[0] as { snapshot_name?: string | null } | undefined;
    return row?.snapshot_name ?? undefined;
  }

  /** Connects if need be and starts streaming from the slot's confirmed position; rejects when the server refuses. */
  async start(on: StreamEvents): Promise<void> {
    await this.connect(on.failed);
    const client = this.client!;
    const wire = this.wire!;
    const slot = postgresKind.dialect.quote(this.slot);
    if (this.temporary && !this.created) await client.query(`CREATE_REPLICATION_SLOT ${slot} TEMPORARY LOGICAL pgoutput`);
    wire.on('copyData', (m: { chunk: Buffer }) => this.onCopyData(m.chunk, on));
    await new Promise<void>((resolve, reject) => {
      wire.once('replicationStart', () => {
        this.streaming = true;
        resolve();
      });
      const pub = this.publication.replace(/'/g, "''");
      client.query(`START_REPLICATION SLOT ${slot} LOGICAL ${formatLsn(this.startLsn ?? 0n)} (${this.inProgress ? "proto_version '2', streaming 'on'" : "proto_version '1'"}, publication_names '${pub}')`).then(
        () => on.failed(new Error('the replication stream ended')),
        (e: unknown) => {
          reject(e);
          on.failed(e);
        },
      );
    });
  }

  private onCopyData(chunk: Buffer, on: StreamEvents): void {
    if (chunk[0] === 0x6b) on.keepalive(chunk.readBigUInt64BE(1), chunk[17] === 1);
    else if (chunk[0] === 0x77) {
      const body = chunk.subarray(25);
      const msg = decodePgOutput(body, this.inBlock);
      if (msg.tag === 'stream-start' || msg.tag === 'stream-stop') this.inBlock = msg.tag === 'stream-start';
      on.message(msg, chunk.readBigUInt64BE(1), this.inBlock && msg.tag !== 'stream-start' ? streamedXid(body) : undefined);
    }
  }

  /** Standby status update: everything up to `confirmed` is flushed. */
  sendStatus(confirmed: bigint, reply: boolean): void {
    if (!this.wire || !this.streaming) return;
    const b = Buffer.alloc(34);
    b[0] = 0x72;
    b.writeBigUInt64BE(confirmed, 1);
    b.writeBigUInt64BE(confirmed, 9);
    b.writeBigUInt64BE(confirmed, 17);
    b.writeBigUInt64BE(BigInt(Date.now()) * 1000n - PG_EPOCH_US, 25);
    b[33] = reply ? 1 : 0;
    this.wire.sendCopyFromChunk(b);
    this.lastStatus = Date.now();
  }

  /**
   * Draining (`bridge copy` of a slot): asks the server for its WAL end now rather than at the next
   * tick, a second later; but not at every wake of the loop. The server answers at once and its
   * answer wakes the loop, so while it decoded a large transaction (nothing to deliver for seconds)
   * each answer asked again, back and forth at loopback speed (6,900 status messages in 2 s for a
   * 300k-row UPDATE), taking the walsender's time from the decoding. Asked too soon after the last
   * time, `wake` is called when it may ask again.
   */
  askEnd(confirmed: bigint, wake: () => void): void {
    const wait = this.askedAt + ASK_END_MS - Date.now();
    if (wait <= 0) {
      this.askedAt = Date.now();
      return this.sendStatus(confirmed, true);
    }
    this.askLater ??= setTimeout(() => {
      this.askLater = undefined;
      wake();
    }, wait).unref();
  }

  pause(): void {
    this.wire?.stream.pause();
  }

  resume(): void {
    this.wire?.stream.resume();
  }

  async end(): Promise<void> {
    clearTimeout(this.askLater);
    const c = this.client;
    this.client = undefined;
    this.wire = undefined;
    await c?.end().catch(() => {});
  }
}
