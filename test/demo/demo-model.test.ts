// The keyless demo model says which files reached it (issue #48), so a newcomer sees an upload arrive.
import { runAgent } from '../../src/agent/run-agent';
import { DEMO_UNKNOWN_QUESTION, demoModel } from '../../src/demo/demo-model';
import { createChatModel } from '../../src/providers/create-model';
import { useScriptedServer } from '../support/agent';
import { pdf, png } from '../support/files';

describe('the demo model and the files of a call', () => {
	const server = useScriptedServer({ script: demoModel });
	const model = () =>
		createChatModel({
			provider: 'openai',
			apiKey: 'demo',
			baseUrl: server().openaiBaseUrl,
			model: 'gpt-4o-mini',
			maxRetries: 0,
		});
	const config = { model: 'gpt-4o-mini', allowed_tools: [] as string[], pass_pdfs: true };

	it('names an image it received, with its type and size, before its usual sentence', async () => {
		const image = png(1200, 800);
		const result = await runAgent({
			model: model(),
			config,
			prompt: 'What is in this picture?',
			files: [{ name: 'invoice.png', mimeType: 'image/png', data: image }],
		});

		const kb = Math.round(image.length / 1024);
		const size = image.length < 1024 ? `${image.length} bytes` : `${kb} KB`;
		expect(result.final_answer).toBe(
			`I received an image (image/png, ${size}). ${DEMO_UNKNOWN_QUESTION}`,
		);
	});

	it('names a PDF by the file name it came with, and counts several files', async () => {
		const document = pdf(3);
		const image = png(16, 16);
		const result = await runAgent({
			model: model(),
			config,
			prompt: 'Summarise these.',
			files: [
				{ name: 'invoice.pdf', data: document },
				{ name: 'logo.png', data: image },
			],
		});

		expect(result.final_answer).toMatch(
			new RegExp(
				'^I received 2 files: invoice\\.pdf \\(application/pdf, \\d+ (bytes|KB)\\), ' +
					'an image \\(image/png, \\d+ bytes\\)\\. The demo model answers only',
			),
		);
	});

	it('says nothing of files when the call carried none', async () => {
		const result = await runAgent({ model: model(), config, prompt: 'Hello?' });
		expect(result.final_answer).toBe(DEMO_UNKNOWN_QUESTION);
	});
});
