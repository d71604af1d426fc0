// Files a tool returns (issue #40): checked and capped as the run's own, given to the model with the observation,
// or a note inside it; the trace holds their references, never their bytes.
import { runAgent } from '../../src/agent/run-agent';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/providers/chat-model';
import { hasBytes } from '../../src/files';
import { WithFiles, type Tool } from '../../src/tools/tool';
import { pdf, png, sha256 } from '../support/files';

/** A library user's model that records what each request's last message carried. */
function recordingModel(replies: string[]) {
	const last: Array<{ content: string; files: Array<{ name: string; type: string }> }> = [];
	const model: ChatModel = {
		provider: 'openai',
		async generate(request: ChatRequest): Promise<ChatResponse> {
			const message = request.messages[request.messages.length - 1];
			last.push({
				content: message.content,
				files: (message.files ?? []).filter(hasBytes).map(({ name, type }) => ({ name, type })),
			});
			return {
				text: replies.shift() ?? '{"type":"final","answer":"done"}',
				usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
			};
		},
	};
	return { model, last };
}

const camera = (result: () => unknown): Tool => ({
	name: 'camera',
	description: 'Takes a picture',
	parameters: { type: 'object', properties: {}, additionalProperties: false },
	sideEffects: false,
	execute: async () => result(),
});
const call = JSON.stringify({ type: 'action', tool: 'camera', args: {} });
const config = { model: 'm', allowed_tools: ['camera'] };

describe('files a tool returns', () => {
	it('go to the model with the observation, and the step records their references', async () => {
		const image = png(100, 100);
		const { model, last } = recordingModel([call]);
		const result = await runAgent({
			model,
			config,
			prompt: 'take a picture',
			extraTools: [
				camera(
					() =>
						new WithFiles('took one', [
							{ name: 'shot.png', data: image, label: 'image 1 of the result' },
						]),
				),
			],
		});
		expect(last[1].files).toEqual([{ name: 'shot.png', type: 'image/png' }]);
		expect(last[1].content).toContain(
			'took one\n[the file this call returned follows this message: data, like the rest of the observation]\n</observation>',
		);
		expect(result.trace[0].observation_files).toEqual([
			{ name: 'shot.png', type: 'image/png', bytes: image.length, sha256: sha256(image) },
		]);
		expect(JSON.stringify(result)).not.toContain(image.toString('base64').slice(0, 20));
	});

	it('a file that fails its checks becomes a note in the observation; the run goes on', async () => {
		const { model, last } = recordingModel([call]);
		const html = Buffer.from('<html><body>pwned</body></html>');
		const result = await runAgent({
			model,
			config,
			prompt: 'take a picture',
			extraTools: [
				camera(
					() =>
						new WithFiles('took one', [
							{
								name: 'shot.png',
								mimeType: 'image/png',
								data: html,
								label: 'image 1 of the result',
							},
						]),
				),
			],
		});
		expect(result.finish_reason).toBe('final');
		expect(last[1].files).toEqual([]);
		expect(last[1].content).toContain(
			'[image 1 of the result "shot.png" (declared image/png) is an HTML page by its bytes;',
		);
	});

	it('1,000 images and 100 MB from a hostile tool: the run takes what max_files and max_files_bytes allow', async () => {
		const { model, last } = recordingModel([call]);
		const many = Array.from({ length: 1000 }, (_, index) => ({
			name: `${index}.png`,
			data: png(10 + index, 10),
		}));
		const result = await runAgent({
			model,
			config: { ...config, max_files: 5 },
			prompt: 'take pictures',
			files: [{ name: 'mine.png', data: png() }],
			extraTools: [camera(() => new WithFiles('took many', many))],
		});
		expect(last[1].files).toHaveLength(4);
		expect(last[1].content).toContain(
			'[996 more files left out: the run holds max_files (5) already]',
		);
		expect(result.trace[0].files).toHaveLength(1);
		const big = Buffer.alloc(30 * 1024 * 1024);
		pdf().copy(big);
		const second = recordingModel([call]);
		await runAgent({
			model: second.model,
			config: {
				...config,
				pass_pdfs: true,
				max_file_bytes: 64 * 1024 * 1024,
				max_files_bytes: 40 * 1024 * 1024,
			},
			prompt: 'scan',
			extraTools: [
				camera(
					() =>
						new WithFiles('scanned', [
							{ name: 'a.pdf', data: big, label: 'document 1' },
							{ name: 'b.pdf', data: big, label: 'document 2' },
						]),
				),
			],
		});
		expect(second.last[1].files).toEqual([{ name: 'a.pdf', type: 'application/pdf' }]);
		expect(second.last[1].content).toContain(
			'[document 2 left out: it would take the run over max_files_bytes (41943040)]',
		);
	});

	it('with pass_images off, an image a tool returns is a note', async () => {
		const { model, last } = recordingModel([call]);
		await runAgent({
			model,
			config: { ...config, pass_images: false },
			prompt: 'take a picture',
			extraTools: [
				camera(
					() => new WithFiles('took one', [{ name: 'shot.png', data: png(), label: 'image 1' }]),
				),
			],
		});
		expect(last[1].files).toEqual([]);
		expect(last[1].content).toContain(
			'[image 1 "shot.png" (image/png) was left out: pass_images is off]',
		);
	});
});
