import { randomUUID } from 'node:crypto';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { runCli } from './support/cli';
import { AgentContext } from '../nodes/AgentContext/AgentContext.node';
import { AgentCore } from '../nodes/AgentCore/AgentCore.node';
import { final, useScriptedServer } from './support/agent';
import { runWorkflow } from './support/n8n-engine';
import { redisSessionKeys } from '../src/context/redis-store';
import { withSharedRedis } from '../src/redis/shared-clients';
import { redisConnectionFromCredential } from '../nodes/shared/redis-credential';
import { deleteKeysByPrefix, getTestRedis, redisCredentialData, uniqueKeyPrefix, type TestRedis } from './support/redis';
import { connectInSequence, createInputNode, createNode } from './support/test-nodes';

const REDIS_CREDENTIAL = { agentCoreRedisApi: { id: '3', name: 'Test Redis' } };

describe('Agent Context → Agent Core → Agent Context in n8n’s engine', () => {
  const server = useScriptedServer();
  let redis: TestRedis;
  let client: Redis;
  const keyPrefix = uniqueKeyPrefix('node-chain');

  beforeAll(async () => {
    redis = await getTestRedis();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    await deleteKeysByPrefix(client, keyPrefix);
    // A session's keys are tagged by its whole session key, history prefix included: {<prefix><session>}:turns.
    await deleteKeysByPrefix(client, `{${keyPrefix}`);
    client.disconnect();
    await redis.stop();
  });

  function redisCredentials(url = redis.url) {
    return { agentCoreRedisApi: redisCredentialData(url) };
  }

  function contextNode(name: string, operation: string, storage: string, extra: INodeParameters = {}, options: INodeParameters = { keyPrefix }): INode {
    return createNode({
      name,
      type: 'agentContext',
      parameters: { operation, storage, options, ...extra },
      settings: storage === 'redis' ? { credentials: REDIS_CREDENTIAL } : {},
    });
  }

  async function chain(storage: 'redis' | 'memory', item: IDataObject, redisUrl?: string, options?: INodeParameters) {
    return runWorkflow({
      nodes: [
        createInputNode([item], 'Webhook'),
        contextNode('Prepare', 'prepare', storage, {}, options),
        createNode({
          name: 'Agent Core',
          type: 'agentCore',
          parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, inputMode: 'messages' },
          settings: { credentials: { agentCoreOpenAiApi: { id: '1', name: 'OpenAI' } } },
        }),
        contextNode('Persist', 'persist', storage, {}, options),
      ],
      connections: connectInSequence('Webhook', 'Prepare', 'Agent Core', 'Persist'),
      nodeTypes: { agentCore: new AgentCore(), agentContext: new AgentContext() },
      credentials: { agentCoreOpenAiApi: { apiKey: 'k', url: server().openaiBaseUrl }, ...redisCredentials(redisUrl) },
    });
  }

  /** Answers from what the model was sent: it "remembers" only what the history gave it. */
  const rememberingModel = () =>
    server().setScript((request) => {
      const earlier = request.messages.slice(1, -1).map((message) => message.content).join(' ');
      const name = /my name is (\w+)/i.exec(earlier)?.[1];
      return final(name ? `You are ${name}.` : 'Hello, stranger.');
    });

  describe.each(['redis', 'memory'] as const)('with %s storage', (storage) => {
    it('carries the first turn into the second turn’s model request', async () => {
      rememberingModel();
      const session = `s-${randomUUID()}`;
      const first = await chain(storage, { body: { session_id: session, prompt: 'My name is Grace' } });
      expect(first.outputOf('Persist')[0].json).toMatchObject({
        final_answer: 'Hello, stranger.',
        session_id: session,
        context: { session_id: session, stored_turns: 1, persisted_messages: 2 },
      });

      const second = await chain(storage, { body: { session_id: session, prompt: 'Who am I?' } });
      expect(second.outputOf('Persist')[0].json).toMatchObject({ final_answer: 'You are Grace.', context: { stored_turns: 2 } });
      const sent = server().requests[1].messages;
      expect(sent.slice(1).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(sent[1].content).toBe('My name is Grace');
      expect(sent[3].content).toBe('Who am I?');
      expect(second.outputOf('Prepare')[0].json).toMatchObject({ history_turns: 1, stored_turns: 1, skipped_corrupt: 0 });
    });
  });

  it('reuses one Redis connection per process across executions instead of opening one each (issue #20)', async () => {
    rememberingModel();
    const session = `s-${randomUUID()}`;
    const connection = redisConnectionFromCredential(redisCredentialData(redis.url));
    await chain('redis', { body: { session_id: session, prompt: 'My name is Ada' } });
    const id = String(await withSharedRedis(connection, (shared) => shared.client('ID')));
    const lastCommandOf = async () => /cmd=(\S+)/.exec(String(await client.client('LIST', 'ID', id)))?.[1];
    expect(await lastCommandOf()).toBe('client|id');
    await chain('redis', { body: { session_id: session, prompt: 'Who am I?' } });
    // The executions' prepare and persist ran on that same connection: its last command is persist's script.
    expect(await lastCommandOf()).toMatch(/^evalsha$|^eval$/);
    expect(await withSharedRedis(connection, (shared) => shared.client('ID'))).toBe(Number(id));
  });

  it('follows a Chat Trigger conversation (sessionId, chatInput) with the default fields, the reply in output', async () => {
    rememberingModel();
    const sessionId = `chat-${randomUUID()}`;
    const chatMessage = (chatInput: string) => ({ action: 'sendMessage', sessionId, chatInput });
    const first = await chain('memory', chatMessage('My name is Linus'));
    expect(first.outputOf('Persist')[0].json).toMatchObject({ output: 'Hello, stranger.', session_id: sessionId, context: { stored_turns: 1 } });

    const second = await chain('memory', chatMessage('Who am I?'));
    expect(second.outputOf('Persist')[0].json).toMatchObject({ output: 'You are Linus.', final_answer: 'You are Linus.', context: { stored_turns: 2 } });
  });

  describe('in queue mode (EXECUTIONS_MODE=queue)', () => {
    const before = process.env.EXECUTIONS_MODE;
    beforeEach(() => {
      process.env.EXECUTIONS_MODE = 'queue';
    });
    afterEach(() => {
      if (before === undefined) delete process.env.EXECUTIONS_MODE;
      else process.env.EXECUTIONS_MODE = before;
    });

    it('refuses In-Memory storage with an error that says to use Redis, before the model is called', async () => {
      const result = await chain('memory', { body: { session_id: `queue-${randomUUID()}`, prompt: 'hi' } });
      const error = result.errorOf('Prepare') as Error & { description?: string };
      expect(error.message).toMatch(/In-Memory storage does not work in queue mode/);
      expect(error.description).toMatch(/Set Storage to Redis/);
      expect(server().requests).toHaveLength(0);
    });

    it('keeps working on Redis', async () => {
      rememberingModel();
      const result = await chain('redis', { body: { session_id: `queue-${randomUUID()}`, prompt: 'My name is Q' } });
      expect(result.outputOf('Persist')[0].json).toMatchObject({ final_answer: 'Hello, stranger.', context: { stored_turns: 1 } });
    });
  });

  it('an unanswered run stores nothing; with Store Unanswered Question it is kept, marked, and never replayed', async () => {
    const session = `unanswered-${randomUUID()}`;
    server().setScript('not the protocol');
    const failed = await chain('redis', { body: { session_id: session, prompt: 'First question' } });
    expect(failed.outputOf('Persist')[0].json).toMatchObject({ finish_reason: 'parse_error', context: { stored: false, stored_turns: null, persisted_messages: 0 } });
    expect(await client.llen(redisSessionKeys('', `${keyPrefix}${session}`).turns)).toBe(0);

    await chain('redis', { body: { session_id: session, prompt: 'Second question' } }, undefined, { keyPrefix, storeUnanswered: true });
    const stored = (await client.lrange(redisSessionKeys('', `${keyPrefix}${session}`).turns, 0, -1)).map((entry) => JSON.parse(entry));
    expect(stored).toMatchObject([{ unanswered: true, messages: [{ role: 'user', content: 'Second question' }] }]);

    rememberingModel();
    await chain('redis', { body: { session_id: session, prompt: 'Third question' } });
    const sent = server().requests.at(-1)!.messages;
    expect(sent.slice(1)).toEqual([{ role: 'user', content: 'Third question' }]);
  });

  it('a conversation started by the CLI continues in the node and back: one key layout', async () => {
    const session = `shared-${randomUUID()}`;
    const folder = mkdtempSync(join(tmpdir(), 'agent-core-shared-'));
    const config = join(folder, 'config.json');
    writeFileSync(config, JSON.stringify({ model: 'scripted-model' }));
    const cli = (prompt: string) =>
      runCli(['run', '--config', config, '--prompt', prompt, '--base-url', server().openaiBaseUrl, '--api-key', 'k', '--session', session, '--redis-url', redis.url]);
    try {
      rememberingModel();
      const first = await cli('My name is Ada');
      expect(JSON.parse(first.stdout)).toMatchObject({ context: { history_turns: 0, stored_turns: 1 } });
      const inNode = await chain('redis', { body: { session_id: session, prompt: 'Who am I?' } }, undefined, {});
      expect(inNode.outputOf('Persist')[0].json).toMatchObject({ final_answer: 'You are Ada.', context: { stored_turns: 2 } });
      const back = await cli('And again?');
      expect(JSON.parse(back.stdout)).toMatchObject({ final_answer: 'You are Ada.', context: { history_turns: 2, stored_turns: 3 } });
      expect(await client.exists(redisSessionKeys('', `agent_core:ctx:${session}`).turns)).toBe(1);
    } finally {
      await deleteKeysByPrefix(client, `{agent_core:ctx:${session}`);
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('keeps separate sessions apart', async () => {
    rememberingModel();
    await chain('redis', { body: { session_id: 'alpha', prompt: 'My name is Alan' } });
    const other = await chain('redis', { body: { session_id: 'beta', prompt: 'Who am I?' } });
    expect(other.outputOf('Persist')[0].json.final_answer).toBe('Hello, stranger.');
  });

  async function single(operation: string, parameters: INodeParameters, item: IDataObject, settings: Partial<INode> = {}, redisUrl?: string) {
    const node = contextNode('Context', operation, 'redis', parameters);
    return runWorkflow({
      nodes: [createInputNode([item]), { ...node, ...settings }],
      connections: connectInSequence('Input', 'Context'),
      nodeTypes: { agentContext: new AgentContext() },
      credentials: redisCredentials(redisUrl),
    });
  }

  it('gets and clears a session', async () => {
    rememberingModel();
    await chain('redis', { body: { session_id: 'to-clear', prompt: 'My name is Kay' } });
    const got = await single('get', {}, { session_id: 'to-clear' });
    expect(got.outputOf('Context')[0].json).toMatchObject({ stored_turns: 1, ttl_seconds: expect.any(Number) });
    const cleared = await single('clear', {}, { session_id: 'to-clear' });
    expect(cleared.outputOf('Context')[0].json).toEqual({ session_id: 'to-clear', deleted: true });
    const after = await single('get', {}, { session_id: 'to-clear' });
    expect(after.outputOf('Context')[0].json).toMatchObject({ stored_turns: 0 });
  });

  it('skips and counts corrupt stored entries instead of failing prepare', async () => {
    const answered = [{ role: 'user', content: 'ok' }, { role: 'assistant', content: 'fine' }];
    // Written in the layout before Redis Cluster support (no hash tag): prepare still finds it.
    await client.rpush(`${keyPrefix}corrupt:turns`, 'not json', JSON.stringify({ messages: answered, at: new Date().toISOString() }), '{"wrong":"shape"}');
    const result = await single('prepare', { userMessage: 'next' }, { session_id: 'corrupt' });
    expect(result.outputOf('Context')[0].json).toMatchObject({ history_turns: 1, skipped_corrupt: 2 });
  });

  it('names Redis and its address when it is down, within seconds, and honours continueOnFail', async () => {
    const started = Date.now();
    const down = await single('prepare', {}, { session_id: 'x' }, {}, 'redis://127.0.0.1:1');
    expect(down.errorOf('Context')?.message).toMatch(/Redis at 127\.0\.0\.1:1 is unreachable/);
    expect(Date.now() - started).toBeLessThan(5000);
    const tolerant = await single('prepare', {}, { session_id: 'x' }, { continueOnFail: true }, 'redis://127.0.0.1:1');
    expect(tolerant.outputOf('Context')[0].json.error).toMatch(/Redis at 127\.0\.0\.1:1/);
  });

  it.each([
    ['prepare', { sessionId: '={{ $json.body.session_id }}' }, { body: {} }, 'session ID is empty'],
    ['persist', {}, { session_id: 'p', messages: 'oops' }, 'messages is not valid JSON'],
    ['persist', {}, { session_id: 'p', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role must be'],
  ])('%s refuses bad input %j with a message naming the field', async (operation, parameters, item, message) => {
    const result = await single(operation, parameters as INodeParameters, item);
    expect(result.errorOf('Context')?.message).toContain(message);
  });
});
