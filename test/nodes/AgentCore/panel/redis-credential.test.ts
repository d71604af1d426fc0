import type { ICredentialDataDecryptedObject, ICredentialTestFunctions } from 'n8n-workflow';
import { testRedisCredential } from '../../../../nodes/shared/redis-credential';
import { getTestRedis, type TestRedis } from '../../../support/redis';

describe('the Agent Core: Redis API credential test', () => {
	let redis: TestRedis;
	beforeAll(async () => {
		redis = await getTestRedis();
	});
	afterAll(() => redis.stop());

	const test = (data: ICredentialDataDecryptedObject) =>
		testRedisCredential.call({} as ICredentialTestFunctions, {
			id: '1',
			name: 'Redis',
			type: 'agentCoreRedisApi',
			data,
		});

	it('connects, pings and reports OK', async () => {
		const url = new URL(redis.url);
		const result = await test({
			host: url.hostname,
			port: Number(url.port || 6379),
			username: '',
			password: '',
			database: 0,
			tls: false,
		});
		expect(result).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connected \(PING \d+ ms\)$/),
		});
	});

	it('names Redis and the address when nothing answers, within seconds', async () => {
		const started = Date.now();
		const result = await test({ host: '127.0.0.1', port: 1, database: 0 });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Redis at 127\.0\.0\.1:1 is unreachable/);
		expect(Date.now() - started).toBeLessThan(5000);
	});
});
