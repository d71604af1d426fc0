// The one owner of an execution's Redis: the node's Agent Core: Redis API credential and everything opened from it.
import type { IExecuteFunctions } from 'n8n-workflow';
import {
	RedisBudgetLedger,
	RedisCheckpoints,
	RedisMcpPins,
	RedisUsedStates,
	type BudgetLedger,
	type CheckpointStore,
	type McpPinStore,
	type UsedStates,
} from '../../../../src/run-path';
import type { RedisConnectionOptions } from '../../../../src/context';
import { nodeError } from '../../../shared/node-errors';
import { missingCredential } from './missing-credential';
import { redisConnectionFromCredential } from '../../../shared/redis-credential';
import type { PanelVersion } from '../../panel/version';

const REDIS_CREDENTIAL = 'agentCoreRedisApi';

/**
 * The execution's Redis: the credential is read once, for the first item that needs it, and what uses it —
 * the shared-budget ledger, the used-state registry that lets a paused run resume only once, a durable
 * run's checkpoints, the MCP tool pins, the Redis Context tool's connection — comes from here; `close` ends what was opened when the execution's items
 * are done. The ledger, the registry, the checkpoints and the pins share this process's client for the connection (src/redis/shared-clients.ts).
 */
export class ExecutionRedis {
	private connection?: Promise<RedisConnectionOptions>;
	private ledger?: RedisBudgetLedger;
	private usedStates?: RedisUsedStates;
	private checkpointStore?: RedisCheckpoints;
	private pins?: RedisMcpPins;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly panel: Pick<PanelVersion, 'credentialPickers'>,
	) {}

	/** Whether a Redis credential is chosen on the node (it is optional; what needs it says so). */
	get chosen(): boolean {
		return Boolean(this.context.getNode().credentials?.[REDIS_CREDENTIAL]);
	}

	/** The credential's connection, for `user` (named in the error when no credential is chosen). */
	connectionFor(itemIndex: number, user: string): Promise<RedisConnectionOptions> {
		if (!this.chosen) {
			// Version 2 shows the picker under Governance (V2/agent-core-v2.ts says why), by its label.
			const { message, fix } = missingCredential('redis', user, this.panel.credentialPickers.redis);
			throw nodeError(this.context, message, itemIndex, fix);
		}
		this.connection ??= this.context
			.getCredentials(REDIS_CREDENTIAL, itemIndex)
			.then(redisConnectionFromCredential);
		return this.connection;
	}

	/** The shared-budget ledger, opened for the first item with a shared budget and shared by the rest. */
	async budgetLedger(itemIndex: number): Promise<BudgetLedger> {
		const connection = await this.connectionFor(
			itemIndex,
			'A shared budget (Limits → Shared Token Budget)',
		);
		this.ledger ??= new RedisBudgetLedger({ shared: connection });
		return this.ledger;
	}

	/** The used-state registry, or none without a credential (a state could then be resumed twice: README says so). */
	async usedStateRegistry(itemIndex: number): Promise<UsedStates | undefined> {
		if (!this.chosen) return undefined;
		const connection = await this.connectionFor(itemIndex, 'Resuming a paused run');
		this.usedStates ??= new RedisUsedStates({ shared: connection });
		return this.usedStates;
	}

	/** Where durable runs keep their checkpoints (Governance → Durable Runs), shared by the execution's items. */
	async checkpoints(itemIndex: number): Promise<CheckpointStore> {
		const connection = await this.connectionFor(itemIndex, 'Durable Runs (Governance)');
		this.checkpointStore ??= new RedisCheckpoints({ shared: connection });
		return this.checkpointStore;
	}

	/**
	 * Where MCP tool definitions are pinned (Options → MCP Servers (JSON)), shared by the execution's items, or none:
	 * without the credential, or in version 2 with Governance off, where its picker is hidden and n8n does not hand it out.
	 */
	async mcpPins(itemIndex: number, credentialShown: boolean): Promise<McpPinStore | undefined> {
		if (!this.chosen || !credentialShown) return undefined;
		const connection = await this.connectionFor(itemIndex, 'Pinning MCP tool definitions');
		this.pins ??= new RedisMcpPins({ shared: connection });
		return this.pins;
	}

	async close(): Promise<void> {
		await Promise.all([
			this.ledger?.close(),
			this.usedStates?.close(),
			this.checkpointStore?.close(),
			this.pins?.close(),
		]);
	}
}

/** The execution's Redis, made on the first call: an execution that uses no Redis makes none (execute/index.ts). */
export type OpenRedis = () => ExecutionRedis;
