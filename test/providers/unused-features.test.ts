// A call that uses no file, no stream and meets no refused field does not run their code (issue #49).
import * as fileBody from '../../src/providers/file-body';
import * as fileParts from '../../src/providers/file-parts';
import * as refusedFields from '../../src/providers/refused-fields';
import { OpenAiChatModel } from '../../src/providers/openai';
import type { ChatRequest } from '../../src/providers/chat-model';
import { useScriptedServer } from '../support/agent';

describe('an OpenAI call of a run that uses none of files, streaming or dropped fields', () => {
	const server = useScriptedServer();

	it('is answered without asking which files go, making file markers or entering the refused-field retry', async () => {
		const spies = [
			jest.spyOn(fileParts, 'sentFiles'),
			jest.spyOn(fileParts, 'withoutFiles'),
			jest.spyOn(fileBody, 'fileMarkers'),
			jest.spyOn(refusedFields, 'callAgainWithoutRefused'),
		];
		try {
			server().setScript(['The answer.']);
			const model = new OpenAiChatModel({
				apiKey: 'sk-unused-0123456789',
				baseUrl: server().openaiBaseUrl,
			});
			const request: ChatRequest = {
				model: 'gpt-4o-mini',
				messages: [
					{ role: 'system', content: 'Be brief.' },
					{ role: 'user', content: 'Hello' },
				],
				responseFormat: { type: 'text' },
				signal: new AbortController().signal,
			};
			expect((await model.generate(request)).text).toBe('The answer.');
			for (const spy of spies) expect(spy).not.toHaveBeenCalled();
		} finally {
			for (const spy of spies) spy.mockRestore();
		}
	});
});
