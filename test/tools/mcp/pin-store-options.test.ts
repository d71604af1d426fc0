import { mcpPinKey, RedisMcpPins } from '../../../src/index';
import { startCanary, useLoopbackGuard, type TestServer } from '../../support/servers/http-servers';
import { expectNearMiss, refusalOf } from '../../support/option-refusal';
import { useTestRedis } from '../../support/redis';

/**
 * Issue #48: `new RedisMcpPins({ connection, keyPrefx })` pinned under the default prefix, where another
 * deployment's pins (its trust) live. Refused before anything connects: the connection is a canary.
 */
describe('RedisMcpPins refuses an option it does not know, before it connects', () => {
	useLoopbackGuard();
	const redis = useTestRedis();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));

	it('keyPrefx: an InputError naming it and keyPrefix; spelt right, the pin is kept under that prefix', async () => {
		const error = await refusalOf(async () => {
			const connection = { url: `redis://127.0.0.1:${canary.port}`, connectTimeoutMs: 300 };
			const pins = new RedisMcpPins({ connection, keyPrefx: 'team-a:' } as never);
			await pins.check('server', { search: 'f1' }, new Set()).finally(() => pins.close());
		});
		expectNearMiss(error, 'RedisMcpPins', 'keyPrefx', 'keyPrefix');

		const keyPrefix = redis.keyPrefix('pin-options');
		const pins = new RedisMcpPins({ connection: { url: redis.url }, keyPrefix });
		await pins.check('server', { search: 'f1' }, new Set()).finally(() => pins.close());
		expect(await redis.admin.hget(mcpPinKey(keyPrefix, 'server'), 'search')).toBe('f1');
	});
});
