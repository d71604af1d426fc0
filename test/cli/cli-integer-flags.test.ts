// Every integer flag of every command, from the flags the commands declare: decimal digits within its range, or exit 2 having changed nothing.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { AUDIT_FLAGS } from '../../src/cli/audit/audit-command';
import { EVAL_FLAGS } from '../../src/cli/eval/eval-command';
import { integerFlags, type IntegerRange } from '../../src/cli/flags';
import { RUN_FLAGS } from '../../src/cli/run-flags';
import { SESSION_FLAGS } from '../../src/cli/session/session-command';
import { redisSessionKeys } from '../../src/context/redis/redis-store';
import { final, useScriptedServer } from '../support/agent';
import { runCli } from '../support/cli';
import { deleteKeysByPrefix, getTestRedis, type TestRedis } from '../support/redis';

type Options = Record<string, { type: string; integer?: IntegerRange }>;

/** Each command (with its subcommand) and the option table it parses: the list of integer flags comes from these. */
const COMMANDS: Array<[string[], Options]> = [
	[['run'], RUN_FLAGS],
	[['resume'], RUN_FLAGS],
	[['eval'], EVAL_FLAGS],
	[['session', 'list'], SESSION_FLAGS],
	[['session', 'fork'], SESSION_FLAGS],
	[['session', 'rewind'], SESSION_FLAGS],
	[['audit', 'verify'], AUDIT_FLAGS],
	[['audit', 'replay'], AUDIT_FLAGS],
	[['audit', 'fork'], AUDIT_FLAGS],
];

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const integerFlagsOf = (options: Options) =>
	Object.keys(options).filter((flag) => options[flag].integer !== undefined);

/** What Number() reads as 1 (or 0), and more a careless or hostile command line holds. */
const REFUSED = ['0x1', '1e0', '+1', ' 1', '1.0', '-1', ''];

describe('integer flags of the command line', () => {
	const server = useScriptedServer();
	let redis: TestRedis;
	let client: Redis;
	let folder: string;
	const session = `integer-flags-${randomUUID()}`;
	const target = `integer-flags-target-${randomUUID()}`;
	const turnKeys = redisSessionKeys('', `agent_core:ctx:${session}`);

	beforeAll(async () => {
		redis = await getTestRedis();
		client = new Redis(redis.url);
		folder = mkdtempSync(join(tmpdir(), 'agent-core-integer-flags-'));
		for (let turn = 1; turn <= 3; turn++) {
			await client.rpush(
				turnKeys.turns,
				JSON.stringify({
					seq: turn,
					messages: [
						{ role: 'user', content: `q${turn}` },
						{ role: 'assistant', content: `a${turn}` },
					],
					at: new Date().toISOString(),
				}),
			);
		}
		await client.set(turnKeys.seq, '3');
	});
	afterAll(async () => {
		await deleteKeysByPrefix(client, `{agent_core:ctx:${session}`);
		await deleteKeysByPrefix(client, `{agent_core:ctx:${target}`);
		client.disconnect();
		await redis.stop();
		rmSync(folder, { recursive: true, force: true });
	});

	function write(name: string, content: string): string {
		const path = join(folder, name);
		writeFileSync(path, content);
		return path;
	}

	/** A command line that, with a good value, would ask the model, write to Redis or read the audit database. */
	function commandLine(command: string[]): string[] {
		const config = write('config.json', JSON.stringify({ model: 'scripted-model' }));
		const model = ['--base-url', server().openaiBaseUrl, '--api-key', 'k'];
		const postgres = 'postgres://postgres@127.0.0.1:1/none';
		switch (command.join(' ')) {
			case 'run':
				return [
					...command,
					'--config',
					config,
					'--prompt',
					'hi',
					...model,
					'--audit-postgres',
					postgres,
				];
			case 'resume':
				return [
					...command,
					'--config',
					config,
					'--state',
					join(folder, 'state.json'),
					'--approve',
					...model,
					'--audit-postgres',
					postgres,
				];
			case 'eval':
				return [
					...command,
					'--config',
					config,
					'--dataset',
					write('cases.jsonl', '{"input": "hi"}\n'),
					...model,
				];
			case 'session fork':
				return [...command, '--session', session, '--to-session', target, '--redis-url', redis.url];
			case 'audit fork':
				return [...command, '--postgres', postgres, '--run', 'r', ...model];
			case 'audit replay':
				return [
					...command,
					'--postgres',
					postgres,
					'--since',
					'2000-01-01',
					'--model',
					'c',
					...model,
				];
			default:
				return command[0] === 'session'
					? [...command, '--session', session, '--redis-url', redis.url]
					: [...command, '--postgres', postgres, '--run', 'r'];
		}
	}

	const turnStates = async () =>
		(await client.lrange(turnKeys.turns, 0, -1)).map((entry) => JSON.parse(entry).seq);

	it('every command that declares an integer flag is covered, and the ones known today are all declared', () => {
		const declared = COMMANDS.flatMap(([command, options]) =>
			integerFlagsOf(options).map((flag) => `${command.join(' ')} --${flag}`),
		);
		expect(declared).toEqual(
			expect.arrayContaining([
				'run --audit-retention-days',
				'eval --concurrency',
				'session rewind --turn',
				'session fork --turn',
				'audit replay --limit',
				'audit fork --step',
			]),
		);
		// No command reads a flag's number by itself: Number(), parseInt and parseFloat of a flag's text live in flags.ts.
		const cliFiles = [
			join('src', 'cli.ts'),
			...readdirSync(join('src', 'cli'), { recursive: true, encoding: 'utf8' }).map((name) =>
				join('src', 'cli', name),
			),
		].filter((file) => file.endsWith('.ts') && !file.endsWith('flags.ts'));
		const readers = cliFiles.filter((file) =>
			/\bparse(Int|Float)\(|\bNumber\((values|parsed)\b|\bNumber\((value|text|retention)\)/.test(
				readFileSync(file, 'utf8'),
			),
		);
		expect(readers).toEqual([]);
	});

	it.each(
		COMMANDS.flatMap(([command, options]) =>
			integerFlagsOf(options).map((flag) => [command.join(' '), flag] as const),
		),
	)(
		'%s --%s refuses 0x1, 1e0, +1, " 1", 1.0, -1 and "", naming the flag and the value, and changes nothing',
		async (commandText, flag) => {
			server().setScript(final('asked'));
			const command = commandText.split(' ');
			for (const value of REFUSED) {
				const refused = await runCli([...commandLine(command), `--${flag}=${value}`]);
				expect({ value, code: refused.code, stdout: refused.stdout }).toEqual({
					value,
					code: 2,
					stdout: '',
				});
				expect(refused.stderr).toMatch(
					new RegExp(
						`^agent-core: --${flag} must be .*: a whole number from \\d+ .*in decimal digits.*, not ${escaped(JSON.stringify(value))}\n$`,
					),
				);
			}
			expect(server().requests).toHaveLength(0);
			expect(await turnStates()).toEqual([1, 2, 3]);
			expect(await client.exists(redisSessionKeys('', `agent_core:ctx:${target}`).turns)).toBe(0);
			expect(await client.exists(turnKeys.archive)).toBe(0);
		},
	);

	it('session rewind --turn=0x1 archives nothing, where --turn=1 (the same number in digits) archives turns 2 and 3', async () => {
		const hex = await runCli([
			'session',
			'rewind',
			'--session',
			session,
			'--turn=0x1',
			'--redis-url',
			redis.url,
		]);
		expect(hex.code).toBe(2);
		const listed = JSON.parse(
			(await runCli(['session', 'list', '--session', session, '--redis-url', redis.url])).stdout,
		);
		expect(
			listed.turns.map((turn: { seq: number; state: string }) => `${turn.seq}:${turn.state}`),
		).toEqual(['1:live', '2:live', '3:live']);

		const digits = await runCli([
			'session',
			'rewind',
			'--session',
			session,
			'--turn=1',
			'--redis-url',
			redis.url,
		]);
		expect(JSON.parse(digits.stdout)).toMatchObject({ archived: 2, live_turns: 1 });
	});

	it('reads decimal digits within range, refuses leading zeros, other digits and numbers past the range, quoting a long value shortened', () => {
		const turn = SESSION_FLAGS.turn.integer;
		const read = (text: string) =>
			integerFlags({ turn: { type: 'string', integer: turn } }, { turn: text }).turn;
		expect([read('0'), read('7'), read('9007199254740991')]).toEqual([0, 7, 9007199254740991]);
		for (const text of [
			'007',
			'00',
			'٣',
			'1_000',
			'Infinity',
			'NaN',
			'0b1',
			'0o1',
			'1 ',
			'\t1',
			'1\n',
			'9007199254740992',
		]) {
			expect(() => read(text)).toThrow(/^--turn must be a turn number of the session/);
		}
		expect(() => read('9'.repeat(5000))).toThrow(/from 0 to 9007199254740991 .*not "9{40}…"$/);
		expect(() => read('1\nagent-core: forged line')).toThrow(/not "1\\nagent-core: forged line"$/);
		const concurrency = EVAL_FLAGS.concurrency.integer;
		expect(() =>
			integerFlags(
				{ concurrency: { type: 'string', integer: concurrency } },
				{ concurrency: '33' },
			),
		).toThrow(/from 1 to 32 .*not "33"$/);
	});
});
