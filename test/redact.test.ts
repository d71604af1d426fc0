import { runAgent } from '../src/agent/run-agent';
import { REDACTED, Redactor, secretsInSettings } from '../src/trace/redact';
import { action, final, modelFor, probeTool, useScriptedServer } from './support/agent';

describe('Redactor', () => {
  const redactor = new Redactor(['fixed-token-123456']);

  it.each([
    ['Authorization: Bearer abcdefghijklmnop', `Authorization: Bearer ${REDACTED}`],
    ['key sk-proj-ABCDEFGHIJKLMNOPQRSTUV in text', `key ${REDACTED} in text`],
    ['google AIzaSyA1234567890abcdefghijklmnopqrstuv', `google ${REDACTED}`],
    ['gh ghp_abcdefghijklmnopqrstuvwxyz0123456789', `gh ${REDACTED}`],
    ['aws AKIAABCDEFGHIJKLMNOP', `aws ${REDACTED}`],
    ['jwt eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl', `jwt ${REDACTED}`],
    ['https://x.test/a?api_key=s3cr3t&page=2', `https://x.test/a?api_key=${REDACTED}&page=2`],
    ['{"password":"hunter2","user":"bob"}', `{"password":"${REDACTED}","user":"bob"}`],
    ['the fixed-token-123456 leaked', `the ${REDACTED} leaked`],
    ['prompt_tokens: 12, nothing secret here', 'prompt_tokens: 12, nothing secret here'],
  ])('scrubs %j', (input, expected) => {
    expect(redactor.text(input)).toBe(expected);
  });

  it('blanks secret-named fields but keeps token counts and structure', () => {
    const input = { headers: { Authorization: 'x', 'X-Api-Key': 'y', accept: 'json' }, usage: { total_tokens: 5, max_tokens: 9 }, list: ['ok'] };
    expect(redactor.value(input)).toEqual({
      headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED, accept: 'json' },
      usage: { total_tokens: 5, max_tokens: 9 },
      list: ['ok'],
    });
  });

  it('finds fixed header values and secret-named settings, leaving harmless headers alone', () => {
    const found = secretsInSettings({
      http_request: { headers: { 'X-Custom-Auth': 'abc123456', Accept: 'application/json' } },
      feishu_bot: { signing_secret: 'shh-secret', webhook_url: 'https://open.feishu.cn/open-apis/bot/v2/hook/tok' },
      redis_context: { redis_url: 'redis://:pw@127.0.0.1:6379', ttl_seconds: 60 },
    });
    expect(found.sort()).toEqual(['abc123456', 'https://open.feishu.cn/open-apis/bot/v2/hook/tok', 'redis://:pw@127.0.0.1:6379', 'shh-secret']);
  });
});

describe('runAgent keeps secrets out of its output', () => {
  const server = useScriptedServer();

  it('redacts args, observations and answers in trace and messages while the tool got the real value', async () => {
    const received: unknown[] = [];
    const probe = probeTool('probe', async (args) => {
      received.push(args);
      return { echoed: 'token=abc Bearer live-token-987654321 and sk-ABCDEFGHIJKLMNOPQRSTUVWX' };
    });
    probe.tool.parameters = { type: 'object', properties: { value: { type: 'integer' }, api_key: { type: 'string' } }, required: ['value'] };
    server().setScript([action('probe', { value: 1, api_key: 'model-supplied-secret' }), final('Your key is sk-ABCDEFGHIJKLMNOPQRSTUVWX')]);
    const result = await runAgent({ model: modelFor(server()), config: { model: 'm', allowed_tools: ['probe'] }, extraTools: [probe.tool], prompt: 'use key provider-key-abcdef', secrets: ['provider-key-abcdef'] });
    expect(received).toEqual([{ value: 1, api_key: 'model-supplied-secret' }]);
    const written = JSON.stringify(result);
    expect(written).not.toContain('model-supplied-secret');
    expect(written).not.toContain('live-token-987654321');
    expect(written).not.toContain('sk-ABCDEFGHIJKLMNOPQRSTUVWX');
    expect(written).not.toContain('provider-key-abcdef');
    expect(result.trace[0].action?.args).toEqual({ value: 1, api_key: REDACTED });
    expect(result.final_answer).toBe(`Your key is ${REDACTED}`);
  });
});
