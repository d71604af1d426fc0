// Where MCP tool definitions are pinned (Redis for every process, memory for one), and what a pin says about a tool.
import type { OptionNames } from '../../core/known-options';
import {
	checkRedisStoreOptions,
	ManagedRedis,
	REDIS_SOURCE_OPTIONS,
	type RedisSource,
} from '../../redis/managed-client';
import { hashTag } from '../../redis/hash-tag';
import { confirmWrite } from '../../redis/replication';
import { evaluateScript, luaScript } from '../../redis/script';

/**
 * What became of a tool's pin in this run: `pinned` (the kept pin matches), `pinned_now` (no pin was kept: this
 * definition is pinned from now on, trust on first use), `config` (matches `mcp_servers[].pins`), `accepted` (matches
 * `pins`, which replaced another kept pin), `unpinned` (no pin store and no `pins` entry: runs, with a notice) or
 * `changed` (differs from its pin: blocked, never called).
 */
export type PinStatus = 'pinned' | 'pinned_now' | 'config' | 'accepted' | 'unpinned' | 'changed';

/**
 * The pins of MCP tool definitions, by server name and the server's own tool name. RedisMcpPins keeps them for every
 * process and n8n worker; MemoryMcpPins for this process only.
 */
export interface McpPinStore {
	/**
	 * In one step for one server: each offered tool without a kept pin is pinned to its fingerprint (trust on first
	 * use), and each tool in `accept` is pinned to its fingerprint whatever was kept. Returns, per offered tool, the
	 * fingerprint kept before (absent: none).
	 */
	check(
		server: string,
		offered: Readonly<Record<string, string>>,
		accept: ReadonlySet<string>,
	): Promise<Record<string, string | undefined>>;
	close(): Promise<void>;
}

export const DEFAULT_MCP_PIN_PREFIX = 'agent_core:mcp_pin:';
const PIN_STORE_OPTIONS = {
	...REDIS_SOURCE_OPTIONS,
	keyPrefix: true,
} satisfies OptionNames<RedisSource & { keyPrefix?: string }>;

/** The one key of a server's pins: a hash (tool → fingerprint) at `<prefix>{<server name>}`, the name a Redis Cluster hash tag. */
export function mcpPinKey(prefix: string, server: string): string {
	return `${prefix}${hashTag(server)}`;
}

/** Pins in this process only. */
export class MemoryMcpPins implements McpPinStore {
	private readonly servers = new Map<string, Map<string, string>>();

	async check(
		server: string,
		offered: Readonly<Record<string, string>>,
		accept: ReadonlySet<string>,
	): Promise<Record<string, string | undefined>> {
		let pins = this.servers.get(server);
		if (!pins) this.servers.set(server, (pins = new Map()));
		const previous: Record<string, string | undefined> = {};
		for (const [tool, fingerprint] of Object.entries(offered)) {
			previous[tool] = pins.get(tool);
			if (previous[tool] === undefined || accept.has(tool)) pins.set(tool, fingerprint);
		}
		return previous;
	}

	async close(): Promise<void> {}
}

/**
 * Pins or re-pins each tool and returns what was kept before ("" for none). KEYS: the server's hash; ARGV: triples
 * of tool, fingerprint and 1 (accept: overwrite) or 0 (pin only when none is kept).
 */
const CHECK_SCRIPT = luaScript(`
local kept = {}
for i = 1, #ARGV, 3 do
  local previous = redis.call('HGET', KEYS[1], ARGV[i])
  if not previous then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    previous = ''
  elseif ARGV[i + 2] == '1' and previous ~= ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
  kept[#kept + 1] = previous
end
return kept
`);

/**
 * Pins in Redis: one hash per server, `agent_core:mcp_pin:{<server name>}`, field = the server's tool name, value = the
 * fingerprint (hex). A server's pins share a slot, so one script reads and writes them together on a Redis Cluster; a
 * write is done once a replica holds it (confirmWrite). Pins never expire: they are the operator's trust, removed
 * with DEL (the whole server) or HDEL (one tool). Sent again during a failover, a check finds its own pins and reports
 * them `pinned` rather than `pinned_now`.
 */
export class RedisMcpPins implements McpPinStore {
	private readonly redis: ManagedRedis;
	private readonly keyPrefix: string;

	constructor(options: RedisSource & { keyPrefix?: string }) {
		checkRedisStoreOptions('RedisMcpPins', options, PIN_STORE_OPTIONS);
		this.redis = new ManagedRedis(options, 'Redis MCP pin store');
		this.keyPrefix = options.keyPrefix ?? DEFAULT_MCP_PIN_PREFIX;
	}

	async check(
		server: string,
		offered: Readonly<Record<string, string>>,
		accept: ReadonlySet<string>,
	): Promise<Record<string, string | undefined>> {
		const tools = Object.keys(offered);
		if (tools.length === 0) return {};
		const key = mcpPinKey(this.keyPrefix, server);
		const args = tools.flatMap((tool) => [tool, offered[tool], accept.has(tool) ? '1' : '0']);
		const kept = await this.redis.run('check the MCP tool pins', async (client) => {
			const reply = (await evaluateScript(client, CHECK_SCRIPT, [key], args)) as string[];
			const wrote = tools.some(
				(tool, index) =>
					reply[index] === '' || (accept.has(tool) && reply[index] !== offered[tool]),
			);
			if (wrote) await confirmWrite(client, key);
			return reply;
		});
		return Object.fromEntries(
			tools.map((tool, index) => [tool, kept[index] === '' ? undefined : kept[index]]),
		);
	}

	close(): Promise<void> {
		return this.redis.close();
	}
}

/** A tool's pin status from its offered fingerprint, its `pins` entry, and what the store kept (`store` false: none configured). */
export function pinStatus(
	offered: string,
	configured: string | undefined,
	store: { kept?: string } | false,
): { status: PinStatus; pinned?: string } {
	if (configured !== undefined) {
		if (configured !== offered) return { status: 'changed', pinned: configured };
		return {
			status: store && store.kept !== undefined && store.kept !== offered ? 'accepted' : 'config',
			pinned: configured,
		};
	}
	if (!store) return { status: 'unpinned' };
	if (store.kept === undefined) return { status: 'pinned_now', pinned: offered };
	return store.kept === offered
		? { status: 'pinned', pinned: offered }
		: { status: 'changed', pinned: store.kept };
}
