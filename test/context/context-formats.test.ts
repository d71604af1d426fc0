import type { ChatMessage } from '../../src/core/messages';
import {
	CONTINUED_CONVERSATION_PLACEHOLDER,
	toAnthropicFormat,
	toGeminiFormat,
	toOpenAiFormat,
	toProviderFormats,
} from '../../src/context/formats';

const conversation: ChatMessage[] = [
	{ role: 'system', content: 'Be brief.' },
	{ role: 'user', content: 'Hi' },
	{ role: 'assistant', content: 'Hello' },
	{ role: 'user', content: 'Weather?' },
];

describe('provider formats', () => {
	test('OpenAI gets the neutral messages unchanged, as a copy', () => {
		const { messages } = toOpenAiFormat(conversation);
		expect(messages).toEqual(conversation);
		expect(messages[0]).not.toBe(conversation[0]);
	});

	test('Gemini gets user/model contents and the system message as systemInstruction', () => {
		expect(toGeminiFormat(conversation)).toEqual({
			systemInstruction: { parts: [{ text: 'Be brief.' }] },
			contents: [
				{ role: 'user', parts: [{ text: 'Hi' }] },
				{ role: 'model', parts: [{ text: 'Hello' }] },
				{ role: 'user', parts: [{ text: 'Weather?' }] },
			],
		});
	});

	test('Anthropic gets a top-level system and user/assistant messages', () => {
		expect(toAnthropicFormat(conversation)).toEqual({
			system: 'Be brief.',
			messages: [
				{ role: 'user', content: 'Hi' },
				{ role: 'assistant', content: 'Hello' },
				{ role: 'user', content: 'Weather?' },
			],
		});
	});

	test('consecutive same-role messages are merged so the roles alternate', () => {
		const repeated: ChatMessage[] = [
			{ role: 'user', content: 'first' },
			{ role: 'user', content: 'second' },
			{ role: 'assistant', content: 'one' },
			{ role: 'assistant', content: 'two' },
		];
		expect(toAnthropicFormat(repeated).messages).toEqual([
			{ role: 'user', content: 'first\n\nsecond' },
			{ role: 'assistant', content: 'one\n\ntwo' },
		]);
		expect(toGeminiFormat(repeated).contents).toEqual([
			{ role: 'user', parts: [{ text: 'first' }, { text: 'second' }] },
			{ role: 'model', parts: [{ text: 'one' }, { text: 'two' }] },
		]);
		expect(toOpenAiFormat(repeated).messages).toHaveLength(4);
	});

	test('a conversation starting with the assistant gets a placeholder user message first', () => {
		const assistantFirst: ChatMessage[] = [
			{ role: 'system', content: 'rules' },
			{ role: 'assistant', content: 'as I said' },
			{ role: 'user', content: 'go on' },
		];
		expect(toAnthropicFormat(assistantFirst).messages[0]).toEqual({
			role: 'user',
			content: CONTINUED_CONVERSATION_PLACEHOLDER,
		});
		expect(toGeminiFormat(assistantFirst).contents.map((content) => content.role)).toEqual([
			'user',
			'model',
			'user',
		]);
		expect(toOpenAiFormat(assistantFirst).messages[1].role).toBe('assistant');
	});

	test('system messages anywhere are gathered in order, and blank messages are dropped', () => {
		const scattered: ChatMessage[] = [
			{ role: 'system', content: 'one' },
			{ role: 'user', content: 'a' },
			{ role: 'assistant', content: '   ' },
			{ role: 'system', content: 'two' },
			{ role: 'user', content: 'b' },
		];
		expect(toAnthropicFormat(scattered)).toEqual({
			system: 'one\n\ntwo',
			messages: [{ role: 'user', content: 'a\n\nb' }],
		});
		expect(toGeminiFormat(scattered).systemInstruction).toEqual({
			parts: [{ text: 'one' }, { text: 'two' }],
		});
	});

	test('without a system message no system field is set, and an empty history stays empty', () => {
		const formats = toProviderFormats([]);
		expect(formats).toEqual({
			openai: { messages: [] },
			gemini: { contents: [] },
			anthropic: { messages: [] },
		});
		expect('system' in toAnthropicFormat([{ role: 'user', content: 'x' }])).toBe(false);
	});
});
