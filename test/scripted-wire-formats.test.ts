/**
 * The scripted server's Anthropic Messages, OpenAI Responses and Ollama native formats, each through
 * the vendor's real client where one is installed (@anthropic-ai/sdk, openai, @langchain/openai).
 */
import Anthropic from '@anthropic-ai/sdk';
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from '../src/demo/scripted-server';

const openServers: ScriptedServer[] = [];

async function startServer(options?: ScriptedServerOptions): Promise<ScriptedServer> {
  const server = await startScriptedServer(options);
  openServers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(openServers.splice(0).map((server) => server.close()));
});

async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Anthropic Messages API through @anthropic-ai/sdk', () => {
  function anthropicClient(server: ScriptedServer): Anthropic {
    return new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
  }

  it('reads the top-level system and consecutive user turns and answers a Message with end_turn', async () => {
    const server = await startServer({ script: 'Bonjour' });
    const message = await anthropicClient(server).messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: 'first' },
        { role: 'user', content: [{ type: 'text', text: 'second' }] },
      ],
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'Bonjour' }], stop_reason: 'end_turn', stop_sequence: null });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const [request] = server.requests;
    expect(request.provider).toBe('anthropic');
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'first' },
      { role: 'user', content: 'second' },
    ]);
    expect(request.headers['x-api-key']).toBe('test-key');
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('names a length finish max_tokens and a content filter refusal', async () => {
    const server = await startServer({ script: [{ text: 'cut', finishReason: 'length' }, { text: '', finishReason: 'content_filter' }] });
    const client = anthropicClient(server);
    const ask = () => client.messages.create({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect((await ask()).stop_reason).toBe('max_tokens');
    expect((await ask()).stop_reason).toBe('refusal');
  });

  it('streams message_start, text deltas and message_stop that the SDK assembles into the final Message', async () => {
    const server = await startServer({ script: { chunks: ['Hel', 'lo ', 'there'] } });
    const stream = anthropicClient(server).messages.stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts).toEqual(['Hel', 'lo ', 'there']);
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(server.requests[0].streamed).toBe(true);
  });

  it('sends a mid-stream failure as an error event, which the SDK throws', async () => {
    const server = await startServer({ script: { chunks: ['one', 'two'], streamErrorAfter: 1, errorMessage: 'Overloaded' } });
    const stream = anthropicClient(server).messages.stream({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    const error = await rejectionOf(stream.finalMessage());
    expect(String(error.message)).toContain('Overloaded');
  });

  it('answers an error status in Anthropic error form with the type the status means', async () => {
    const server = await startServer({ script: [{ status: 429, errorMessage: 'slow down' }, { status: 529, errorMessage: 'Overloaded' }] });
    const client = anthropicClient(server);
    const ask = () => client.messages.create({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    const rateLimited = await rejectionOf(ask());
    expect(rateLimited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(rateLimited.status).toBe(429);
    // SDK 0.27: `.error` is the whole body, `{type:"error", error:{type, message}, request_id}`.
    expect(rateLimited.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });
    const overloaded = await rejectionOf(ask());
    expect(overloaded.status).toBe(529);
    expect(overloaded.error.error.type).toBe('overloaded_error');
  });

  it('refuses temperature together with top_p with the documented 400', async () => {
    const server = await startServer({ script: 'unused' });
    const client = anthropicClient(server);
    const error = await rejectionOf(
      client.messages.create({ model: 'claude-test', max_tokens: 5, temperature: 0.5, top_p: 0.9, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(error.status).toBe(400);
    expect(error.error.error).toEqual({
      type: 'invalid_request_error',
      message: '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
    });
  });

  it('answers 400 invalid_request_error when max_tokens is missing', async () => {
    const server = await startServer({ script: 'unused' });
    const error = await rejectionOf(anthropicClient(server).messages.create({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] } as any));
    expect(error.status).toBe(400);
    expect(error.error.error.type).toBe('invalid_request_error');
    expect(error.error.error.message).toContain('max_tokens');
    expect(server.requests).toHaveLength(0);
  });
});
