import type { Redis } from 'ioredis';
import {
  createClient,
  createRedisClientOptions,
  DEFAULT_CONNECT_TIMEOUT_MS,
  describeRedisFailure,
  ignoreError,
  quitClient,
  redisAddress,
  waitUntilReady,
  type RedisConnectionOptions,
} from './connection';
import { ContextStoreError } from './errors';
import { sharedRedisClient, withSharedRedis } from './shared-clients';

/**
 * Either a connection the owner opens and owns; or this process's shared client for a connection (see
 * withSharedRedis: n8n executions reuse it instead of connecting each time); or a client the caller owns
 * and closes.
 */
export type RedisSource =
  | { connection: RedisConnectionOptions }
  | { shared: RedisConnectionOptions }
  | { client: Redis; /** Also quit this client on `close()`. Default false. */ closeClient?: boolean };

/**
 * One Redis client as the stores use it: connected on first use, commands failing as one clear
 * ContextStoreError naming the address, concurrent first uses sharing one connection attempt, a failed
 * attempt retried by the next command, and closed once.
 */
export class ManagedRedis {
  private readonly ownClient?: Redis;
  private readonly shared?: RedisConnectionOptions;
  readonly address: string;
  private readonly ownsClient: boolean;
  private connecting: Promise<void> | undefined;
  private closed = false;

  /** `what` names the owner in the error after close, e.g. "Redis context store". */
  constructor(
    source: RedisSource,
    private readonly what: string,
  ) {
    if ('client' in source) {
      this.ownClient = source.client;
      this.ownsClient = source.closeClient ?? false;
      // Without a listener, ioredis prints every connection error as an unhandled 'error' event.
      this.ownClient.on('error', ignoreError);
    } else if ('shared' in source) {
      this.shared = source.shared;
      this.ownsClient = false;
    } else {
      this.ownClient = createClient(createRedisClientOptions(source.connection));
      this.ownsClient = true;
    }
    this.address = redisAddress(this.client.options);
  }

  /** The client commands go to (a shared one is looked up each time: the process may have replaced it). */
  get client(): Redis {
    return this.shared ? sharedRedisClient(this.shared) : this.ownClient!;
  }

  async run<T>(operation: string, command: (client: Redis) => Promise<T>): Promise<T> {
    if (this.closed) {
      throw new ContextStoreError(`The ${this.what} for ${this.address} is closed`, { failure: 'command', address: this.address, operation });
    }
    const attempt = async () => {
      await this.ensureReady();
      return command(this.client);
    };
    try {
      return await (this.shared ? withSharedRedis(this.shared, attempt) : attempt());
    } catch (error) {
      throw describeRedisFailure(error, this.address, operation);
    }
  }

  /** Quits (or, if Redis does not answer, drops) the connection, when it is ours; a shared one stays for the next execution. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.ownsClient) await quitClient(this.client);
  }

  private ensureReady(): Promise<void> {
    if (this.client.status === 'ready') return Promise.resolve();
    this.connecting ??= waitUntilReady(this.client, this.client.options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS)
      .catch((error: unknown) => {
        // A server that accepted the socket but never got ready would otherwise keep it open. (An
        // ended client is left alone: disconnecting it again arms a timer that keeps Node running.)
        if ((this.ownsClient || this.shared) && this.client.status !== 'end') this.client.disconnect();
        throw error;
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }
}
