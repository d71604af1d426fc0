// Issue #30: `rediss://` naming any node of a Redis Cluster that speaks only TLS, with the CA an operator trusts through NODE_EXTRA_CA_CERTS.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { findOnPath } from '../support/redis';
import { NO_CLUSTER_BINARIES } from '../support/redis-cluster';

const run = promisify(execFile);
const MASTERS = 3;

/** A CA, and a certificate for 127.0.0.1 signed by it, made with the machine's openssl. */
async function makeCertificates(folder: string): Promise<void> {
	const openssl = (...args: string[]) => run('openssl', args, { cwd: folder });
	await openssl(
		'req',
		'-x509',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-keyout',
		'ca.key',
		'-out',
		'ca.pem',
		'-days',
		'2',
		'-subj',
		'/CN=Agent Core test CA',
	);
	await openssl(
		'req',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-keyout',
		'node.key',
		'-out',
		'node.csr',
		'-subj',
		'/CN=127.0.0.1',
	);
	writeFileSync(join(folder, 'san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
	await openssl(
		'x509',
		'-req',
		'-in',
		'node.csr',
		'-CA',
		'ca.pem',
		'-CAkey',
		'ca.key',
		'-CAcreateserial',
		'-out',
		'node.pem',
		'-days',
		'2',
		'-extfile',
		'san.cnf',
	);
}

async function freePorts(count: number): Promise<number[]> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const base = 30_000 + Math.floor(Math.random() * 5_000);
		const ports = Array.from({ length: count }, (_, index) => base + index);
		const free = await Promise.all(
			ports
				.flatMap((port) => [port, port + 10_000])
				.map(
					(port) =>
						new Promise<boolean>((resolve) => {
							const probe = net.createServer();
							probe.once('error', () => resolve(false));
							probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
						}),
				),
		);
		if (free.every(Boolean)) return ports;
	}
	throw new Error(`no ${count} free loopback ports (and their cluster-bus ports) in 30000-35000`);
}

describe('a Redis Cluster that speaks only TLS, named by rediss://', () => {
	const server = useScriptedServer();
	const processes: ChildProcess[] = [];
	let folder: string;
	let ports: number[];
	const url = (index: number) => `rediss://127.0.0.1:${ports[index]}`;

	beforeAll(async () => {
		const redisServer = findOnPath('redis-server');
		const cli = findOnPath('redis-cli');
		if (!redisServer || !cli) throw new Error(NO_CLUSTER_BINARIES);
		folder = mkdtempSync(join(tmpdir(), 'agent-core-tls-cluster-'));
		await makeCertificates(folder);
		ports = await freePorts(MASTERS);
		const tls = [
			'--tls-cert-file',
			'node.pem',
			'--tls-key-file',
			'node.key',
			'--tls-ca-cert-file',
			'ca.pem',
		];
		for (const port of ports) {
			processes.push(
				spawn(
					redisServer,
					[
						'--port',
						'0',
						'--tls-port',
						String(port),
						...tls,
						'--tls-auth-clients',
						'no',
						'--tls-cluster',
						'yes',
						'--tls-replication',
						'yes',
						'--bind',
						'127.0.0.1',
						'--dir',
						folder,
						'--cluster-enabled',
						'yes',
						'--cluster-config-file',
						`nodes-${port}.conf`,
						'--appendonly',
						'no',
						'--save',
						'',
					],
					{ cwd: folder, stdio: 'ignore' },
				),
			);
		}
		const cliTls = ['--tls', '--cacert', join(folder, 'ca.pem')];
		const deadline = Date.now() + 10_000;
		for (const port of ports) {
			for (;;) {
				const pong = await run(cli, [
					...cliTls,
					'-h',
					'127.0.0.1',
					'-p',
					String(port),
					'PING',
				]).then(
					(result) => result.stdout.trim(),
					() => '',
				);
				if (pong === 'PONG') break;
				if (Date.now() > deadline)
					throw new Error(`the TLS redis-server on port ${port} did not answer PING within 10 s`);
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		}
		await run(
			cli,
			[
				...cliTls,
				'--cluster',
				'create',
				...ports.map((port) => `127.0.0.1:${port}`),
				'--cluster-replicas',
				'0',
				'--cluster-yes',
			],
			{ timeout: 30_000 },
		);
		for (;;) {
			const infos = await Promise.all(
				ports.map((port) =>
					run(cli, [...cliTls, '-h', '127.0.0.1', '-p', String(port), 'CLUSTER', 'INFO']).then(
						(result) => result.stdout,
						() => '',
					),
				),
			);
			if (infos.every((info) => info.includes('cluster_state:ok'))) break;
			if (Date.now() > deadline + 20_000)
				throw new Error('the TLS cluster did not reach cluster_state:ok within 30 s');
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	}, 60_000);

	afterAll(async () => {
		for (const child of processes)
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
		if (folder) rmSync(folder, { recursive: true, force: true });
	});

	const configFile = () => {
		const config = join(folder, 'config.json');
		writeFileSync(config, JSON.stringify({ model: 'm' }));
		return config;
	};
	const ask = (
		prompt: string,
		session: string,
		redisUrl: string,
		environment: Record<string, string>,
	) =>
		runCli(
			[
				'run',
				'--config',
				configFile(),
				'--prompt',
				prompt,
				'--base-url',
				server().openaiBaseUrl,
				'--api-key',
				'k',
				'--session',
				session,
				'--redis-url',
				redisUrl,
			],
			environment,
		);

	it('keeps one --session conversation across runs whose rediss:// URLs name different nodes, the CA trusted through NODE_EXTRA_CA_CERTS', async () => {
		server().setScript((request) => {
			const name = /my name is (\w+)/i.exec(
				request.messages
					.slice(1, -1)
					.map((message) => message.content)
					.join(' '),
			)?.[1];
			return final(name ? `You are ${name}.` : 'Hello, stranger.');
		});
		const trusted = { NODE_EXTRA_CA_CERTS: join(folder, 'ca.pem') };
		// Sessions whose keys land on different masters than the node named, so the client follows the cluster's layout over TLS.
		for (const session of [`tls-${randomUUID()}`, `tls-${randomUUID()}`, `tls-${randomUUID()}`]) {
			expect(await ask('My name is Ada', session, url(0), trusted)).toMatchObject({
				code: 0,
				stderr: '',
			});
			const second = await ask('Who am I?', session, url(2), trusted);
			expect(second.stderr).toBe('');
			expect(JSON.parse(second.stdout)).toMatchObject({
				final_answer: 'You are Ada.',
				context: { history_turns: 1, stored_turns: 2 },
			});
		}
	});

	it('without the CA trusted, fails at once naming Redis and the certificate, exit 2, without a model call', async () => {
		const before = server().requests.length;
		const refused = await ask('My name is Ada', `tls-${randomUUID()}`, url(1), {});

		expect(refused.code).toBe(2);
		expect(refused.stderr).toMatch(
			/^agent-core: Redis at 127\.0\.0\.1:\d+ refused over TLS: its certificate is not trusted here \(self-signed certificate in certificate chain\)\n/,
		);
		expect(refused.stderr).toContain(
			'fix: Nothing was written. Start n8n (or agent-core) with NODE_EXTRA_CA_CERTS',
		);
		expect(server().requests.length).toBe(before);
	});

	it('redis:// to a TLS-only node fails naming Redis instead of hanging, exit 2', async () => {
		const refused = await ask('hi', `tls-${randomUUID()}`, `redis://127.0.0.1:${ports[1]}`, {});

		expect(refused.code).toBe(2);
		expect(refused.stderr).toMatch(
			/^agent-core: Redis at 127\.0\.0\.1:\d+ is unreachable \(read ECONNRESET\); .*TLS setting \(rediss:\/\/ for a server that speaks only TLS\)/,
		);
	});
});
