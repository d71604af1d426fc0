import { randomBytes } from 'node:crypto';
import { ConfigError, DEFAULT_CONFIG, resolveConfig } from '../../src/settings/config';
import { openSealedValue, sealValue, type SealedValue } from '../../src/run-state/sealed-value';
import { configHash } from '../../src/trace/digest';
import {
	openRunState as openWithAge,
	RunStateError,
	signRunState,
	stateSecretProblem,
} from '../../src/run-state/signed-state';
import { MAX_STATE_CHARACTERS, MAX_STATE_DEPTH } from '../../src/run-state/state-size';
import { ToolRegistry, builtInTools } from '../../src/tools/registry';
import {
	MemoryUsedStates,
	RedisUsedStates,
	type UsedStates,
} from '../../src/run-state/used-states';
import { useTestRedis } from '../support/redis';

/** Issue #18, first part: a paused run's state that nobody can alter, replay or use with another config. */

const SECRET = 'run-state-secret-0123456789';
const config = {
	model: 'gpt-4o-mini',
	allowed_tools: ['http_request'],
	max_steps: 5,
	approval_required: ['http_request'],
};
const WEEK = { maxAgeDays: 7 };
const openRunState = <Payload>(state: unknown, secret: string, hash: string) =>
	openWithAge<Payload>(state, secret, hash, WEEK);
const DAY_MS = 86_400_000;
const payload = {
	step: 2,
	pending: {
		tool: 'http_request',
		args: { url: 'https://pay.example.com/charge', method: 'POST' },
	},
	conversation: [{ role: 'user', content: 'pay' }],
};

describe('signed run state', () => {
	it('opens with the same key and config, the model aside, and hands back the payload', () => {
		const state = signRunState(payload, SECRET, configHash(config));
		const opened = openRunState<typeof payload>(
			JSON.parse(JSON.stringify(state)),
			SECRET,
			configHash({ ...config, model: 'gemini-2.5-flash' }),
		);
		expect(opened).toMatchObject(payload);
		expect(opened.id).toMatch(/^[0-9a-f-]{36}$/);
		// A state passed through a workflow as JSON text opens too.
		expect(openRunState(JSON.stringify(state), SECRET, configHash(config))).toMatchObject({
			step: 2,
		});
	});

	it('refuses a state with any change in its payload, naming run_state', () => {
		const state = signRunState(payload, SECRET, configHash(config));
		const altered = JSON.parse(JSON.stringify(state));
		altered.payload.pending.args.url = 'https://attacker.example.com/charge';
		const error = (() => {
			try {
				openRunState(altered, SECRET, configHash(config));
			} catch (caught) {
				return caught as RunStateError;
			}
			return undefined;
		})();
		expect(error).toBeInstanceOf(RunStateError);
		expect(error).toMatchObject({
			field: 'run_state',
			message: expect.stringMatching(/^run_state was altered, or signed with another key/),
		});
	});

	it('refuses a state signed with another key, made for another config, or not a run state at all', () => {
		const state = signRunState(payload, SECRET, configHash(config));
		expect(() => openRunState(state, 'another-secret-0123456789', configHash(config))).toThrow(
			/^run_state was altered, or signed with another key/,
		);
		expect(() => openRunState(state, SECRET, configHash({ ...config, max_steps: 50 }))).toThrow(
			/^run_state was made for another config/,
		);
		expect(() =>
			openRunState({ v: 2, payload, signature: 'zz' }, SECRET, configHash(config)),
		).toThrow(RunStateError);
		expect(() => openRunState({ ...state, v: 1 }, SECRET, configHash(config))).toThrow(
			/^run_state was made by Agent Core 0\.1, whose states kept only the redacted call/,
		);
		expect(() => openRunState('not json', SECRET, configHash(config))).toThrow(
			/^run_state is not a paused run's state/,
		);
	});

	it('hashes configs by content, key order aside', () => {
		expect(configHash({ a: 1, b: { c: 2, d: 3 } })).toBe(configHash({ b: { d: 3, c: 2 }, a: 1 }));
		expect(configHash({ a: 1 })).not.toBe(configHash({ a: 2 }));
	});

	it('says what a signing key lacks, how to make one and where to set it, never quoting the key', () => {
		expect(stateSecretProblem(undefined)).toMatch(
			/^pausing for approval needs a signing key of at least 16 characters, 8 of them different.*\(none is set\).*openssl rand -hex 32.*AGENT_CORE_STATE_SECRET.*Agent Core: Run State/,
		);
		expect(stateSecretProblem('short')).toContain(
			'(this one has 5 characters, 5 of them different)',
		);
		expect(stateSecretProblem(' '.repeat(16))).toContain(
			'(this one has 16 characters, 1 of them different)',
		);
		const repetitive = 'abcdefg'.repeat(10);
		expect(stateSecretProblem(repetitive)).toContain('70 characters, 7 of them different');
		expect(stateSecretProblem(repetitive)).not.toContain(repetitive);
		expect(stateSecretProblem(randomBytes(32).toString('hex'))).toBeUndefined();
		expect(stateSecretProblem('abcdefgh'.repeat(2))).toBeUndefined();
		expect(stateSecretProblem(SECRET)).toBeUndefined();
	});

	it('refuses a state older than the maximum age, or made more than five minutes in the future, naming run_state', () => {
		const made = new Date('2026-03-01T12:00:00Z');
		const state = signRunState(payload, SECRET, configHash(config), { now: made });
		const at =
			(offsetMs: number, maxAgeDays = 7) =>
			() =>
				openWithAge(state, SECRET, configHash(config), {
					maxAgeDays,
					now: made.getTime() + offsetMs,
				});
		expect(at(7 * DAY_MS)()).toMatchObject({ step: 2 });
		expect(at(7 * DAY_MS + 1000)).toThrow(
			/^run_state is older than run_state_max_age_days \(7 days\): it was made at 2026-03-01T12:00:00.000Z; .*at most 30/,
		);
		expect(at(2 * DAY_MS, 1)).toThrow(/^run_state is older than run_state_max_age_days \(1 days\)/);
		expect(at(-4 * 60_000)()).toMatchObject({ step: 2 });
		expect(at(-6 * 60_000)).toThrow(
			/^run_state was made in the future \(2026-03-01T12:00:00.000Z\)/,
		);
		expect(at(40 * DAY_MS)).toThrow(RunStateError);
	});

	it('refuses a state nested deeper than the limit or larger than it, as text or as a value, with a RunStateError', () => {
		let deep: unknown = [];
		for (let level = 0; level < 100_000; level++) deep = [deep];
		const deepText = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
		const deepInPayload = { v: 2, payload: { step: 1, trace: deep }, signature: '00' };
		const deepInPayloadText = `{"v":2,"payload":{"step":1,"trace":${deepText}},"signature":"00"}`;
		for (const candidate of [deep, deepText, deepInPayload, deepInPayloadText]) {
			expect(() => openRunState(candidate, SECRET, configHash(config))).toThrow(
				new RunStateError(
					`run_state is nested deeper than ${MAX_STATE_DEPTH} levels, more than a paused run's state can be: pass the run_state of the paused run's output, unchanged`,
				),
			);
		}
		const cyclic: Record<string, unknown> = { v: 2 };
		cyclic.payload = cyclic;
		expect(() => openRunState(cyclic, SECRET, configHash(config))).toThrow(
			/^run_state is nested deeper than/,
		);
		const huge = {
			v: 2,
			payload: { step: 1, conversation: ['x'.repeat(MAX_STATE_CHARACTERS)] },
			signature: '00',
		};
		expect(() => openRunState(huge, SECRET, configHash(config))).toThrow(
			/^run_state is larger than 32000000 characters/,
		);
		expect(() => openRunState(JSON.stringify(huge), SECRET, configHash(config))).toThrow(
			/^run_state is larger than 32000000 characters/,
		);
		const wide = {
			v: 2,
			payload: { items: new Array(MAX_STATE_CHARACTERS).fill(0) },
			signature: '00',
		};
		expect(() => openRunState(wide, SECRET, configHash(config))).toThrow(
			/^run_state is larger than/,
		);
	});

	it('run_state_max_age_days defaults to 7 and is refused outside 0.001–30 days at config time, naming the key', () => {
		const registry = new ToolRegistry(builtInTools);
		expect(DEFAULT_CONFIG.run_state_max_age_days).toBe(7);
		expect(
			resolveConfig({ model: 'm', run_state_max_age_days: 30 }, registry).run_state_max_age_days,
		).toBe(30);
		expect(
			resolveConfig({ model: 'm', run_state_max_age_days: 0.5 }, registry).run_state_max_age_days,
		).toBe(0.5);
		for (const value of [31, 0, -1, '7', null]) {
			const refused = (() => {
				try {
					resolveConfig({ model: 'm', run_state_max_age_days: value }, registry);
				} catch (error) {
					return error as ConfigError;
				}
				return undefined;
			})();
			expect(refused).toBeInstanceOf(ConfigError);
			expect(refused).toMatchObject({
				key: 'run_state_max_age_days',
				message:
					'run_state_max_age_days must be a number of days from 0.001 to 30: a used state is remembered 30 days, so an older one could be resumed again',
			});
		}
	});

	it("a state made for a max age opens under another: the maximum is the resuming side's rule, the config hash ignores it", () => {
		const registry = new ToolRegistry(builtInTools);
		const week = resolveConfig({ model: 'm', run_state_max_age_days: 7 }, registry);
		const day = resolveConfig({ model: 'm', run_state_max_age_days: 1 }, registry);
		// The audit's config hash covers it; the state's hash (paused-run.ts) is taken without it.
		expect(configHash(week as never)).not.toBe(configHash(day as never));
		expect(configHash({ ...week, run_state_max_age_days: undefined } as never)).toBe(
			configHash({ ...day, run_state_max_age_days: undefined } as never),
		);
	});
});

describe('sealed part of a run state', () => {
	const sealed = () =>
		sealValue(
			{ api_key: 'sk-live-secret-value-0123456789', nested: { token: 'abc' } },
			SECRET,
			'state-a',
		);
	const flip = (text: string, at = 0) =>
		text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

	it('opens exactly the value sealed, for the same key and state id; the sealed text does not show it', () => {
		const value = sealed();
		expect(JSON.stringify(value)).not.toContain('sk-live');
		expect(openSealedValue(JSON.parse(JSON.stringify(value)), SECRET, 'state-a')).toEqual({
			api_key: 'sk-live-secret-value-0123456789',
			nested: { token: 'abc' },
		});
		// A fresh IV each time: the same value never seals to the same text.
		expect(sealed().data).not.toBe(value.data);
	});

	it.each<[string, (value: SealedValue) => unknown, string?, string?]>([
		['whose data was edited', (value) => ({ ...value, data: flip(value.data, 5) })],
		['whose data was cut short', (value) => ({ ...value, data: value.data.slice(0, -4) })],
		['whose IV was edited', (value) => ({ ...value, iv: flip(value.iv) })],
		['whose tag was edited', (value) => ({ ...value, tag: flip(value.tag, 3) })],
		[
			'whose tag was cut to 4 bytes (Node would accept a short tag)',
			(value) => ({
				...value,
				tag: Buffer.from(value.tag, 'base64url').subarray(0, 4).toString('base64url'),
			}),
		],
		['with a stray character in its IV', (value) => ({ ...value, iv: `${value.iv}=` })],
		['naming another algorithm', (value) => ({ ...value, alg: 'none' })],
		['that is missing', () => undefined],
		['moved to another state', (value) => value, 'state-b'],
		['sealed with another key', (value) => value, 'state-a', 'another-secret-0123456789'],
	])(
		'refuses a sealed part %s, naming run_state',
		(_case, change, stateId = 'state-a', secret = SECRET) => {
			expect(() => openSealedValue(change(sealed()), secret, stateId)).toThrow(
				new RunStateError(
					"run_state's sealed part does not open: it was altered, taken from another state, or sealed with another key; resume with the state exactly as the paused run gave it, and the same signing key",
				),
			);
		},
	);
});

describe('used run states', () => {
	const redis = useTestRedis();
	const registries: Array<[string, () => UsedStates]> = [
		[
			'Redis',
			() =>
				new RedisUsedStates({ connection: { url: redis.url }, keyPrefix: redis.keyPrefix('used') }),
		],
		['memory', () => new MemoryUsedStates()],
	];

	it.each(registries)(
		'%s: a state can be used once; the second use is refused',
		async (_kind, create) => {
			const used = create();
			try {
				expect(await used.markUsed('state-1', 60)).toBe(true);
				expect(await used.markUsed('state-1', 60)).toBe(false);
				expect(await used.markUsed('state-2', 60)).toBe(true);
			} finally {
				await used.close();
			}
		},
	);

	it('Redis: two workers racing to resume the same state: exactly one wins', async () => {
		const prefix = redis.keyPrefix('race');
		const workers = Array.from(
			{ length: 6 },
			() => new RedisUsedStates({ connection: { url: redis.url }, keyPrefix: prefix }),
		);
		try {
			const wins = await Promise.all(workers.map((worker) => worker.markUsed('contested', 60)));
			expect(wins.filter(Boolean)).toHaveLength(1);
			expect(await redis.admin.ttl(`${prefix}contested`)).toBeGreaterThan(0);
		} finally {
			await Promise.all(workers.map((worker) => worker.close()));
		}
	});
});
