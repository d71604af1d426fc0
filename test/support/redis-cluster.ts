// A throwaway Redis Cluster for tests: 3 masters with a replica each, Debian's redis-server on 127.0.0.1.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { findOnPath } from './redis';

const run = promisify(execFile);

export const NO_CLUSTER_BINARIES =
	'Redis Cluster tests need redis-server and redis-cli: apt-get install -y redis-server';

/** One redis-server of the cluster. */
export interface ClusterNode {
	port: number;
	url: string;
	process: ChildProcess;
}

/** A running cluster of this test alone; `stop` removes every process and the temporary folder. */
export interface TestRedisCluster {
	readonly nodes: ClusterNode[];
	/** redis:// URLs of every node (masters and replicas alike). */
	readonly urls: string[];
	/** The port of the master serving each slot, as a live node sees it now. */
	masterPorts(): Promise<(slot: number) => number>;
	/** The node serving `key`'s slot as master, and its replica. */
	ownersOf(key: string): Promise<{ master: ClusterNode; replica: ClusterNode }>;
	/** A client that sees the whole cluster, for arranging and inspecting keys behind the code under test. */
	admin(): import('ioredis').Cluster;
	/** Waits until every live node reports cluster_state:ok. */
	waitUntilHealthy(timeoutMs?: number): Promise<void>;
	/**
	 * Makes `replica` a master now (CLUSTER FAILOVER FORCE, its master being dead; TAKEOVER if no vote came within
	 * 5 s), and waits until every live node reports cluster_state:ok.
	 */
	promote(replica: ClusterNode): Promise<void>;
	/** Sets (or, with '', removes) the password of the default user on every live node, and the one replicas use. */
	setPassword(password: string): Promise<void>;
	stop(): Promise<void>;
}

const NODE_COUNT = 6;
/** Redis's cluster bus listens on the node's port + 10000. */
const BUS_OFFSET = 10_000;

async function isFree(port: number): Promise<boolean> {
	const server = net.createServer();
	return new Promise((resolve) => {
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** Six consecutive loopback ports in 20000–29000 whose cluster-bus ports are free too. */
async function freePortRange(): Promise<number[]> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const base = 20_000 + Math.floor(Math.random() * 9_000);
		const ports = Array.from({ length: NODE_COUNT }, (_, index) => base + index);
		const checks = await Promise.all(
			ports.flatMap((port) => [isFree(port), isFree(port + BUS_OFFSET)]),
		);
		if (checks.every(Boolean)) return ports;
	}
	throw new Error(
		'no free range of 6 loopback ports (and their cluster-bus ports) found in 20000-29000',
	);
}

async function answersPing(port: number): Promise<boolean> {
	const client = new Redis({
		port,
		host: '127.0.0.1',
		lazyConnect: true,
		retryStrategy: () => null,
		maxRetriesPerRequest: 0,
		connectTimeout: 300,
	});
	client.on('error', () => {});
	try {
		await client.connect();
		return (await client.ping()) === 'PONG';
	} catch {
		return false;
	} finally {
		client.disconnect();
	}
}

async function nodeCommand(port: number, ...args: string[]): Promise<string> {
	const client = new Redis({
		port,
		host: '127.0.0.1',
		lazyConnect: true,
		retryStrategy: () => null,
		maxRetriesPerRequest: 0,
		connectTimeout: 500,
		commandTimeout: 1000,
	});
	client.on('error', () => {});
	try {
		await client.connect();
		return String(await client.call(args[0], ...args.slice(1)));
	} finally {
		client.disconnect();
	}
}

type SlotRange = [number, number, ...Array<[string, number]>];

/** CLUSTER SLOTS as one node sees it: [first slot, last slot, [host, port] of the master, then of each replica]. */
async function slotRanges(port: number): Promise<SlotRange[]> {
	const client = new Redis({
		port,
		host: '127.0.0.1',
		lazyConnect: true,
		retryStrategy: () => null,
		maxRetriesPerRequest: 0,
		connectTimeout: 500,
		commandTimeout: 1000,
	});
	client.on('error', () => {});
	try {
		await client.connect();
		return (await client.call('CLUSTER', 'SLOTS')) as SlotRange[];
	} finally {
		client.disconnect();
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts 6 redis-server processes (3 masters, 1 replica each) on a free loopback range, without persistence, and
 * joins them with `redis-cli --cluster create`; resolves once every node reports cluster_state:ok. Whatever fails
 * on the way, what was started is removed before the error is thrown; and the processes are killed when this
 * process exits, should `stop` never be called.
 */
export async function startRedisCluster(
	options: { nodeTimeoutMs?: number } = {},
): Promise<TestRedisCluster> {
	const server = findOnPath('redis-server');
	const cli = findOnPath('redis-cli');
	if (!server || !cli) throw new Error(NO_CLUSTER_BINARIES);
	const folder = await mkdtemp(path.join(os.tmpdir(), 'agent-core-redis-cluster-'));
	const nodes: ClusterNode[] = [];
	const killAll = () => {
		for (const node of nodes)
			if (node.process.exitCode === null && node.process.signalCode === null)
				node.process.kill('SIGKILL');
	};
	process.once('exit', killAll);
	const admins: import('ioredis').Cluster[] = [];
	const stop = async (): Promise<void> => {
		process.off('exit', killAll);
		for (const admin of admins.splice(0)) admin.disconnect();
		await Promise.all(nodes.map((node) => stopProcess(node.process)));
		await rm(folder, { recursive: true, force: true });
	};
	try {
		const ports = await freePortRange();
		for (const port of ports) {
			const child = spawn(
				server,
				[
					'--port',
					String(port),
					'--bind',
					'127.0.0.1',
					'--dir',
					folder,
					'--cluster-enabled',
					'yes',
					'--cluster-config-file',
					`nodes-${port}.conf`,
					'--cluster-node-timeout',
					String(options.nodeTimeoutMs ?? 2000),
					'--appendonly',
					'no',
					'--save',
					'',
				],
				{ stdio: 'ignore' },
			);
			nodes.push({ port, url: `redis://127.0.0.1:${port}`, process: child });
		}
		await waitFor(
			async () => (await Promise.all(ports.map(answersPing))).every(Boolean),
			10_000,
			'the 6 redis-server processes to answer PING',
		);
		await run(
			cli,
			[
				'--cluster',
				'create',
				...ports.map((port) => `127.0.0.1:${port}`),
				'--cluster-replicas',
				'1',
				'--cluster-yes',
			],
			{ timeout: 30_000 },
		);
		let currentPassword = '';
		const cluster: TestRedisCluster = {
			nodes,
			urls: nodes.map((node) => node.url),
			async masterPorts() {
				const live = nodes.find(
					(node) => node.process.exitCode === null && node.process.signalCode === null,
				)!;
				const ranges = await slotRanges(live.port);
				return (slot) => ranges.find(([first, last]) => slot >= first && slot <= last)![2][1];
			},
			async ownersOf(key) {
				const live = nodes.find(
					(node) => node.process.exitCode === null && node.process.signalCode === null,
				)!;
				const slot = Number(await nodeCommand(live.port, 'CLUSTER', 'KEYSLOT', key));
				const range = (await slotRanges(live.port)).find(
					([first, last]) => slot >= first && slot <= last,
				);
				if (!range?.[3]) throw new Error(`slot ${slot} has no master with a replica`);
				const byPort = (port: number) => nodes.find((node) => node.port === port)!;
				return { master: byPort(range[2][1]), replica: byPort(range[3][1]) };
			},
			admin() {
				const live = nodes.filter(
					(node) => node.process.exitCode === null && node.process.signalCode === null,
				);
				const admin = new Redis.Cluster(
					live.map((node) => ({ host: '127.0.0.1', port: node.port })),
					{ redisOptions: { connectTimeout: 1000 } },
				);
				admin.on('error', () => {});
				admins.push(admin);
				return admin;
			},
			async waitUntilHealthy(timeoutMs = 20_000) {
				await waitFor(
					async () => {
						const live = nodes.filter(
							(node) => node.process.exitCode === null && node.process.signalCode === null,
						);
						const states = await Promise.all(
							live.map((node) => nodeCommand(node.port, 'CLUSTER', 'INFO').catch(() => '')),
						);
						return states.every((info) => info.includes('cluster_state:ok'));
					},
					timeoutMs,
					'every node of the Redis Cluster to report cluster_state:ok',
				);
			},
			async promote(replica) {
				const started = Date.now();
				await nodeCommand(replica.port, 'CLUSTER', 'FAILOVER', 'FORCE');
				let tookOver = false;
				await waitFor(
					async () => {
						if ((await nodeCommand(replica.port, 'ROLE')).startsWith('master')) return true;
						if (!tookOver && Date.now() - started > 5000) {
							tookOver = true;
							await nodeCommand(replica.port, 'CLUSTER', 'FAILOVER', 'TAKEOVER');
						}
						return false;
					},
					15_000,
					`the replica on port ${replica.port} to become a master`,
				);
				await cluster.waitUntilHealthy();
			},
			async setPassword(password) {
				for (const live of nodes.filter(
					(candidate) =>
						candidate.process.exitCode === null && candidate.process.signalCode === null,
				)) {
					const client = new Redis({
						port: live.port,
						host: '127.0.0.1',
						password: currentPassword || undefined,
						lazyConnect: true,
						retryStrategy: () => null,
					});
					client.on('error', () => {});
					try {
						await client.connect();
						await client.config('SET', 'masterauth', password);
						await client.config('SET', 'requirepass', password);
					} finally {
						client.disconnect();
					}
				}
				currentPassword = password;
			},
			stop,
		};
		await cluster.waitUntilHealthy();
		await waitFor(
			async () => {
				const replication = await Promise.all(
					nodes.map((node) => nodeCommand(node.port, 'INFO', 'replication')),
				);
				const slots = await Promise.all(nodes.map((node) => slotRanges(node.port)));
				return (
					replication.filter((info) => info.includes('master_link_status:up')).length ===
						NODE_COUNT / 2 &&
					slots.every(
						(ranges) =>
							ranges.length === NODE_COUNT / 2 && ranges.every((range) => range.length === 4),
					)
				);
			},
			20_000,
			'every replica of the Redis Cluster to be in sync with its master, and known to every node',
		);
		return cluster;
	} catch (error) {
		await stop();
		throw error;
	}
}

async function waitFor(
	check: () => Promise<boolean>,
	timeoutMs: number,
	what: string,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await check().catch(() => false)) return;
		await sleep(100);
	}
	throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	child.kill('SIGKILL');
	await exited;
}
