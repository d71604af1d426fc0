import { ChatOpenAI } from '@langchain/openai';
import {
	createChatModel,
	GeminiChatModel,
	InputError,
	LangChainChatModel,
	OpenAiChatModel,
	runAgent,
	type ChatModel,
} from '../../src/index';
import { startCanary, useLoopbackGuard, type TestServer } from '../support/servers/http-servers';

/**
 * Issue #48: `createChatModel({ provider: 'openai', apiKey, baseURL })` — the openai SDK's own spelling — went to
 * the provider's default host and ended llm_error "Connection error". The canary is the URL the caller meant;
 * the loopback guard records any attempt to reach the default host (api.openai.com, Google's API).
 */
describe('model adapters refuse an option they do not know, before any connection', () => {
	// Fails any test in which something resolved or connected off this machine (the default host).
	useLoopbackGuard();
	let canary: TestServer;
	beforeEach(async () => {
		canary = await startCanary();
	});
	afterEach(() => expect(canary.connections).toBe(0));

	/** Builds the model as a caller would, and runs it if it was built: the error, whichever step threw it. */
	async function refusal(build: () => ChatModel): Promise<unknown> {
		try {
			const model = build();
			const result = await runAgent({ model, config: { model: 'gpt-4o-mini' }, prompt: 'hi' });
			return new Error(`not refused: the run ended ${result.finish_reason}`);
		} catch (error) {
			return error;
		}
	}

	it('createChatModel with baseURL (openai): an InputError naming baseURL and baseUrl', async () => {
		const error = await refusal(() =>
			createChatModel({ provider: 'openai', apiKey: 'k', baseURL: canary.url } as never),
		);
		expect(error).toBeInstanceOf(InputError);
		expect(error).toMatchObject({
			field: 'baseURL',
			message:
				'createChatModel: unknown option "baseURL" (did you mean "baseUrl"?); known options: provider, apiKey, baseUrl, maxRetries, maxConcurrentCalls, model',
			fix: 'Rename baseURL to baseUrl.',
		});
	});

	it('createChatModel with base_url (gemini) and with a misspelt maxRetries', async () => {
		const gemini = { provider: 'gemini', apiKey: 'k', base_url: canary.url };
		expect(await refusal(() => createChatModel(gemini as never))).toMatchObject({
			name: 'InputError',
			field: 'base_url',
			fix: 'Rename base_url to baseUrl.',
		});
		const retries = { provider: 'openai', apiKey: 'k', baseUrl: canary.url, maxRetires: 0 };
		expect(await refusal(() => createChatModel(retries as never))).toMatchObject({
			field: 'maxRetires',
			fix: 'Rename maxRetires to maxRetries.',
		});
	});

	it('createChatModel with nothing, or a string, says it takes an options object', async () => {
		for (const given of [undefined, 'openai']) {
			const error = await refusal(() => createChatModel(given as never));
			expect(error).toBeInstanceOf(InputError);
			expect(error).toMatchObject({ field: 'options' });
		}
	});

	it('OpenAiChatModel and GeminiChatModel built directly refuse baseURL alike', async () => {
		const openAi = await refusal(
			() => new OpenAiChatModel({ apiKey: 'k', baseURL: `${canary.url}/v1` } as never),
		);
		expect(openAi).toBeInstanceOf(InputError);
		expect(openAi).toMatchObject({
			field: 'baseURL',
			message:
				'OpenAiChatModel: unknown option "baseURL" (did you mean "baseUrl"?); known options: apiKey, baseUrl, maxRetries',
		});
		const gemini = await refusal(
			() => new GeminiChatModel({ apiKey: 'k', baseURL: canary.url } as never),
		);
		expect(gemini).toMatchObject({ name: 'InputError', field: 'baseURL' });
	});

	it('LangChainChatModel refuses a misspelt option, and still takes the input name as a string', async () => {
		const chat = () =>
			new ChatOpenAI({ apiKey: 'k', maxRetries: 0, configuration: { baseURL: canary.url } });
		const error = await refusal(() => new LangChainChatModel(chat(), { max_retries: 0 } as never));
		expect(error).toBeInstanceOf(InputError);
		expect(error).toMatchObject({
			field: 'max_retries',
			message:
				'LangChainChatModel: unknown option "max_retries" (did you mean "maxRetries"?); known options: input, maxRetries',
		});
		expect(new LangChainChatModel(chat(), 'Chat Model').provider).toBe('openai');
		expect(new LangChainChatModel(chat(), { input: 'Model', maxRetries: 1 }).provider).toBe(
			'openai',
		);
	});

	it('known options whose value is undefined are taken as absent', () => {
		const model = createChatModel({
			provider: 'openai',
			apiKey: 'k',
			baseUrl: canary.url,
			maxRetries: undefined,
			model: undefined,
		});
		expect(model.provider).toBe('openai');
	});
});
