import { configHash, openRunState, RunStateError, signRunState, stateSecretProblem } from '../src/run-state/signed-state';
import { MemoryUsedStates, RedisUsedStates, type UsedStates } from '../src/run-state/used-states';
import { useTestRedis } from './support/redis';

/** Issue #18, first part: a paused run's state that nobody can alter, replay or use with another config. */

const SECRET = 'run-state-secret-0123456789';
const config = { model: 'gpt-4o-mini', allowed_tools: ['http_request'], max_steps: 5, approval_required: ['http_request'] };
const payload = { step: 2, pending: { tool: 'http_request', args: { url: 'https://pay.example.com/charge', method: 'POST' } }, conversation: [{ role: 'user', content: 'pay' }] };

describe('signed run state', () => {
  it('opens with the same key and config, the model aside, and hands back the payload', () => {
    const state = signRunState(payload, SECRET, configHash(config));
    const opened = openRunState<typeof payload>(JSON.parse(JSON.stringify(state)), SECRET, configHash({ ...config, model: 'gemini-2.5-flash' }));
    expect(opened).toMatchObject(payload);
    expect(opened.id).toMatch(/^[0-9a-f-]{36}$/);
    // A state passed through a workflow as JSON text opens too.
    expect(openRunState(JSON.stringify(state), SECRET, configHash(config))).toMatchObject({ step: 2 });
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
    expect(error).toMatchObject({ field: 'run_state', message: expect.stringMatching(/^run_state was altered, or signed with another key/) });
  });

  it('refuses a state signed with another key, made for another config, or not a run state at all', () => {
    const state = signRunState(payload, SECRET, configHash(config));
    expect(() => openRunState(state, 'another-secret-0123456789', configHash(config))).toThrow(/^run_state was altered, or signed with another key/);
    expect(() => openRunState(state, SECRET, configHash({ ...config, max_steps: 50 }))).toThrow(/^run_state was made for another config/);
    expect(() => openRunState({ v: 1, payload, signature: 'zz' }, SECRET, configHash(config))).toThrow(RunStateError);
    expect(() => openRunState('not json', SECRET, configHash(config))).toThrow(/^run_state is not a paused run's state/);
  });

  it('hashes configs by content, key order aside', () => {
    expect(configHash({ a: 1, b: { c: 2, d: 3 } })).toBe(configHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(configHash({ a: 1 })).not.toBe(configHash({ a: 2 }));
  });

  it('says what a signing key lacks, and where to set one', () => {
    expect(stateSecretProblem(undefined)).toMatch(/^pausing for approval needs a signing key of at least 16 characters.*AGENT_CORE_STATE_SECRET.*Agent Core: Run State/);
    expect(stateSecretProblem('short')).toBeDefined();
    expect(stateSecretProblem(SECRET)).toBeUndefined();
  });
});

describe('used run states', () => {
  const redis = useTestRedis();
  const registries: Array<[string, () => UsedStates]> = [
    ['Redis', () => new RedisUsedStates({ connection: { url: redis.url }, keyPrefix: redis.keyPrefix('used') })],
    ['memory', () => new MemoryUsedStates()],
  ];

  it.each(registries)('%s: a state can be used once; the second use is refused', async (_kind, create) => {
    const used = create();
    try {
      expect(await used.markUsed('state-1', 60)).toBe(true);
      expect(await used.markUsed('state-1', 60)).toBe(false);
      expect(await used.markUsed('state-2', 60)).toBe(true);
    } finally {
      await used.close();
    }
  });

  it('Redis: two workers racing to resume the same state: exactly one wins', async () => {
    const prefix = redis.keyPrefix('race');
    const workers = Array.from({ length: 6 }, () => new RedisUsedStates({ connection: { url: redis.url }, keyPrefix: prefix }));
    try {
      const wins = await Promise.all(workers.map((worker) => worker.markUsed('contested', 60)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await redis.admin.ttl(`${prefix}contested`)).toBeGreaterThan(0);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }
  });
});
