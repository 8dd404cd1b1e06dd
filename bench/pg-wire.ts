/**
 * A bare PostgreSQL client for `bench/pg-promotion.ts`: the simple query protocol over `max`
 * connections taken in turn, trust authentication only, and nothing read from a result but its rows'
 * count. It runs the same statements as postgres.js with none of its code, so that what the young
 * generation promotes can be told apart: postgres.js's doing, or V8's and Node's.
 */
import net from 'node:net';

/** A statement on its way: its text, and what to call with the number of rows it returned. */
export interface WireStatement {
  readonly text: string;
  settle(rows: number): void;
}

function message(type: string, body: Buffer) {
  const out = Buffer.alloc(5 + body.length);
  out[0] = type.charCodeAt(0);
  out.writeUInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

function startup(user: string, database: string) {
  const parameters = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const out = Buffer.alloc(8 + parameters.length);
  out.writeUInt32BE(8 + parameters.length, 0);
  out.writeUInt32BE(196608, 4); // protocol 3.0
  parameters.copy(out, 8);
  return out;
}

/** One connection: statements are answered in the order they were sent. */
function connect(url: URL) {
  const socket = net.connect(Number(url.port || 5432), url.hostname);
  const waiting: WireStatement[] = [];
  let incoming: Buffer = Buffer.alloc(0);
  let rows = 0;
  const ready = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      incoming = incoming.length === 0 ? chunk : Buffer.concat([incoming, chunk]);
      while (incoming.length > 4) {
        const length = incoming.readUInt32BE(1);
        if (length >= incoming.length) break;
        const type = incoming[0];
        if (type === 0x44) rows += 1; // DataRow
        else if (type === 0x45) {
          // ErrorResponse: a benchmark's statements do not fail, so one that does ends the run, loudly.
          socket.destroy(new Error(`PostgreSQL: ${incoming.toString('utf8', 5, length).replaceAll('\0', ' ')}`));
          return;
        }
        else if (type === 0x5a) {
          // ReadyForQuery: the first one ends the start-up, every other one a statement.
          const statement = waiting.shift();
          if (statement) statement.settle(rows);
          else resolve();
          rows = 0;
        }
        incoming = incoming.subarray(length + 1);
      }
    });
  });
  socket.write(startup(decodeURIComponent(url.username) || 'postgres', url.pathname.slice(1) || 'postgres'));
  return {
    ready,
    send(statement: WireStatement) {
      waiting.push(statement);
      socket.write(message('Q', Buffer.from(`${statement.text}\0`)));
    },
    end: () => socket.end(),
  };
}

export async function openWire(databaseUrl: string, max: number) {
  const url = new URL(databaseUrl);
  const connections = Array.from({ length: max }, () => connect(url));
  await Promise.all(connections.map((connection) => connection.ready));
  let turn = 0;
  return {
    send(statement: WireStatement) {
      connections[turn++ % max]!.send(statement);
    },
    close() {
      for (const connection of connections) connection.end();
    },
  };
}
export type Wire = Awaited<ReturnType<typeof openWire>>;

/**
 * A statement as a `Promise` subclass, built the way postgres.js 3.4.9 builds its queries: it settles
 * through a closure over its promise's resolving function, kept on the instance; it is sent from a
 * microtask and derives plain promises (`species`).
 */
export class WireQuery extends Promise<number> implements WireStatement {
  static override get [Symbol.species]() {
    return Promise;
  }
  declare readonly text: string;
  declare readonly settle: (rows: number) => void;
  constructor(text: string, wire: Wire) {
    let resolve!: (rows: number) => void;
    super((settle) => {
      resolve = settle;
    });
    this.text = text;
    this.settle = (rows) => resolve(rows);
    queueMicrotask(() => wire.send(this));
  }
}

/** The same, built as patches/postgres+3.4.9.patch builds postgres.js's: its resolving function kept as it is. */
export class DirectWireQuery extends Promise<number> implements WireStatement {
  static override get [Symbol.species]() {
    return Promise;
  }
  declare readonly text: string;
  declare readonly settle: (rows: number) => void;
  constructor(text: string, wire: Wire) {
    let resolve!: (rows: number) => void;
    super((settle) => {
      resolve = settle;
    });
    this.text = text;
    this.settle = resolve;
    queueMicrotask(() => wire.send(this));
  }
}
