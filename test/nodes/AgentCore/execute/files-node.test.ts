// Agent Core version 2 passes an item's binary files to the run (issue #40), in n8n's engine with n8n's binary data service.
import { createHash } from 'node:crypto';
import { symlinkSync, unlinkSync } from 'node:fs';
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import {
	NodeConnectionTypes,
	type IBinaryData,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
} from 'n8n-workflow';
import { AgentCore } from '../../../../nodes/AgentCore/AgentCore.node';
import { AgentContext } from '../../../../nodes/AgentContext/AgentContext.node';
import { agentCorePropertiesV2 } from '../../../../nodes/AgentCore/V2/description';
import { agentCoreProperties } from '../../../../nodes/AgentCore/V1/description';
import { readItemFiles } from '../../../../nodes/AgentCore/execute/inputs/read-files';
import { panelName } from '../../../../nodes/AgentCore/panel/names';
import { configFromPanel } from '../../../../nodes/AgentCore/panel/settings';
import { ChatOpenAI } from '@langchain/openai';
import { final, useScriptedServer } from '../../../support/agent';
import { engineInstanceId, runWorkflow } from '../../../support/n8n-engine';
import {
	connectInSequence,
	createInputNode,
	createNode,
	subNode,
} from '../../../support/test-nodes';

// n8n 2.x stores binary data on disk by default ("filesystem" mode); the items below go through it as in n8n.
process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';

/** A 1×1 PNG, a one-page PDF's opening, a CSV: what the engine reads by their bytes. */
const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
	'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n');
const CSV = Buffer.from('invoice,total\nA-17,42.50\n');
const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0]);

/** How a test item's binary property is made: stored through n8n's binary data service, inline base64, or as bare metadata. */
type BinarySpec =
	| { store: string; fileName?: string; mimeType: string }
	| { inline: string; mimeType: string; fileName?: string }
	| { metadata: IBinaryData }
	| { linkedTo: string; fileName: string; mimeType: string };

/** One item as a trigger emits it: its json, and its binary properties by key. */
interface ItemSpec {
	json: IDataObject;
	binary?: Record<string, BinarySpec>;
}

const stored = (bytes: Buffer, fileName: string, mimeType: string): BinarySpec => ({
	store: bytes.toString('base64'),
	fileName,
	mimeType,
});

/**
 * Emits items with binary data as n8n's triggers do: `store` goes through helpers.prepareBinaryData (the
 * binary data service, here in filesystem mode: the item holds an id, the bytes are on disk), as the Chat
 * Trigger's and Webhook's copyBinaryFile do; `inline` is base64 in the item (the Webhook's Raw Body).
 */
const binaryItems: INodeType = {
	description: {
		displayName: 'Binary Items',
		name: 'binaryItems',
		group: ['transform'],
		version: 1,
		description: 'test node emitting items with binary data, as a trigger would',
		defaults: { name: 'Binary Items' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const specs = JSON.parse(this.getNodeParameter('items', 0) as string) as ItemSpec[];
		const items: INodeExecutionData[] = [];
		for (const spec of specs) {
			const binary: Record<string, IBinaryData> = {};
			for (const [key, made] of Object.entries(spec.binary ?? {})) {
				if ('store' in made)
					binary[key] = await this.helpers.prepareBinaryData(
						Buffer.from(made.store, 'base64'),
						made.fileName,
						made.mimeType,
					);
				else if ('inline' in made)
					binary[key] = {
						data: made.inline,
						mimeType: made.mimeType,
						...(made.fileName ? { fileName: made.fileName } : {}),
					};
				else if ('linkedTo' in made) {
					// Stored as n8n stores it, then its file on disk swapped for a link: n8n's metadata says 1 byte.
					const stored = await this.helpers.prepareBinaryData(
						Buffer.from('x'),
						made.fileName,
						made.mimeType,
					);
					const path = Container.get(BinaryDataService).getPath(stored.id!);
					unlinkSync(path);
					symlinkSync(made.linkedTo, path);
					const { bytes: _bytes, fileSize: _size, ...withoutSize } = stored;
					binary[key] = withoutSize as IBinaryData;
				} else binary[key] = made.metadata;
			}
			items.push({ json: spec.json, ...(spec.binary ? { binary } : {}) });
		}
		return [items];
	},
};

/** What readItemFiles hands the engine, per item, shown by a probe node in the same engine (names, types, bytes' hash). */
const filesProbe: INodeType = {
	description: {
		displayName: 'Files Probe',
		name: 'filesProbe',
		group: ['transform'],
		version: 1,
		description: "test node: Agent Core version 2's reading of an item's binary files",
		defaults: { name: 'Files Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Options', name: 'options', type: 'json', default: '{}' }],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
			const options = JSON.parse(this.getNodeParameter('options', itemIndex) as unknown as string);
			const files = await readItemFiles(this, itemIndex, options, {});
			items.push({
				json: {
					files: files.map(({ name, mimeType, label, data }) => ({
						name,
						mimeType,
						label,
						bytes: data.byteLength,
						isBytes: data instanceof Uint8Array,
						sha256: createHash('sha256').update(data).digest('hex'),
					})),
				},
			});
		}
		return [items];
	},
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A Chat Trigger item with Allow File Uploads (n8n 2.41, @n8n/n8n-nodes-langchain ChatTrigger.node.ts
 * handleFormData): the message's json with `files` listing each upload, and binary keys data0, data1…
 */
function chatTriggerItem(chatInput: string, uploads: Array<[Buffer, string, string]>): ItemSpec {
	return {
		json: {
			sessionId: 'chat-session-7',
			action: 'sendMessage',
			chatInput,
			files: uploads.map(([bytes, fileName, mimeType], index) => ({
				fileName,
				fileSize: `${bytes.length} B`,
				fileType: mimeType.split('/')[0],
				mimeType,
				fileExtension: fileName.split('.').pop(),
				binaryKey: `data${index}`,
			})),
		},
		binary: Object.fromEntries(
			uploads.map(([bytes, fileName, mimeType], index) => [
				`data${index}`,
				stored(bytes, fileName, mimeType),
			]),
		),
	};
}

/** A Webhook item (n8n-nodes-base Webhook utils.ts handleFormData): a multipart form's files under their field names. */
function webhookFormItem(
	prompt: string,
	files: Record<string, [Buffer, string, string]>,
): ItemSpec {
	return {
		json: { headers: {}, params: {}, query: {}, body: { prompt } },
		binary: Object.fromEntries(
			Object.entries(files).map(([field, [bytes, fileName, mimeType]]) => [
				field,
				stored(bytes, fileName, mimeType),
			]),
		),
	};
}

/** A Webhook item with Raw Body on: the request body as base64 under `data`, with no file name. */
function webhookRawItem(prompt: string, bytes: Buffer, mimeType: string): ItemSpec {
	return {
		json: { headers: {}, params: {}, query: { prompt }, body: {} },
		binary: { data: { inline: bytes.toString('base64'), mimeType } },
	};
}

beforeAll(async () => {
	engineInstanceId(); // n8n's folders point at the harness's temporary user folder first
	await Container.get(BinaryDataService).init();
});

describe("Agent Core version 2's panel for files", () => {
	const optionsOf = (properties: typeof agentCorePropertiesV2) =>
		(properties.find((property) => property.name === 'options')!.options ?? []) as Array<{
			name: string;
			displayName: string;
			type: string;
			default: unknown;
		}>;

	it("shows n8n's AI Agent's two passthrough switches (from the settings table) and Binary Properties in Options", () => {
		const byName = Object.fromEntries(optionsOf(agentCorePropertiesV2).map((o) => [o.name, o]));
		expect(byName.passthroughBinaryImages).toMatchObject({
			displayName: 'Automatically Passthrough Binary Images',
			type: 'boolean',
			default: true,
		});
		expect(byName.passthroughBinaryPdfs).toMatchObject({
			displayName: 'Passthrough Binary PDFs',
			type: 'boolean',
			default: false,
		});
		expect(byName.binaryProperties).toMatchObject({
			displayName: 'Binary Properties',
			type: 'string',
			default: '',
		});
	});

	it("leaves version 1's panel as published: none of the three", () => {
		const names = [
			...agentCoreProperties.map((property) => property.name),
			...agentCoreProperties.flatMap((property) =>
				((property.options ?? []) as Array<{ name: string }>).map((option) => option.name),
			),
		];
		for (const name of ['passthroughBinaryImages', 'passthroughBinaryPdfs', 'binaryProperties'])
			expect(names).not.toContain(name);
	});

	it.each([
		[{ passthroughBinaryImages: false }, { pass_images: false }],
		[
			{ passthroughBinaryImages: true, passthroughBinaryPdfs: true },
			{ pass_images: true, pass_pdfs: true },
		],
		[{ passthroughBinaryPdfs: false }, { pass_pdfs: false }],
		[{ binaryProperties: 'data0' }, {}],
	])(
		'reads the switches %j into the config %j (Binary Properties is no config key)',
		(options, config) => {
			expect(configFromPanel(2, { options, budgets: {} })).toEqual(config);
			// Version 1 sends no files: none of the three reaches its config (which pins one tool call a reply, issue #42).
			expect(configFromPanel(1, { options, limits: {} })).toEqual({ max_parallel_calls: 1 });
		},
	);

	it("names the engine's errors about files by Binary Properties, and the switches by their panel names", () => {
		expect(panelName('files', 2)).toBe('Options → Binary Properties');
		expect(panelName('pass_images', 2)).toBe('Options → Automatically Passthrough Binary Images');
		expect(panelName('pass_pdfs', 2)).toBe('Options → Passthrough Binary PDFs');
	});
});

describe("the node's reading of an item's binary properties, in n8n's engine", () => {
	async function probe(items: ItemSpec[], options: IDataObject = {}) {
		const result = await runWorkflow({
			nodes: [
				createInputNode([{}], 'Start'),
				createNode({
					name: 'Trigger',
					type: 'binaryItems',
					parameters: { items: JSON.stringify(items) },
				}),
				createNode({
					name: 'Files Probe',
					type: 'filesProbe',
					parameters: { options: JSON.stringify(options) },
				}),
			],
			connections: connectInSequence('Start', 'Trigger', 'Files Probe'),
			nodeTypes: { binaryItems, filesProbe },
		});
		const error = result.errorOf('Files Probe');
		if (error)
			return { error: error.message, description: (error as { description?: string }).description };
		return result.outputOf('Files Probe').map((item) => item.json.files);
	}

	it('reads every upload of a Chat Trigger item in order, from the binary data on disk', async () => {
		const item = chatTriggerItem('what is on this invoice?', [
			[PNG, 'photo.png', 'image/png'],
			[PDF, 'invoice.pdf', 'application/pdf'],
		]);
		expect(await probe([item])).toEqual([
			[
				{
					name: 'photo.png',
					mimeType: 'image/png',
					label: 'binary property "data0"',
					bytes: PNG.length,
					isBytes: true,
					sha256: sha256(PNG),
				},
				{
					name: 'invoice.pdf',
					mimeType: 'application/pdf',
					label: 'binary property "data1"',
					bytes: PDF.length,
					isBytes: true,
					sha256: sha256(PDF),
				},
			],
		]);
	});

	it("reads a Webhook's multipart fields by name, and its raw body (base64 in the item) under data", async () => {
		const form = webhookFormItem('read this', {
			invoice: [PDF, 'invoice.pdf', 'application/pdf'],
			notes: [CSV, 'notes.csv', 'text/csv'],
		});
		const raw = webhookRawItem('what is this?', PNG, 'image/png');
		const [fromForm, fromRaw] = (await probe([form, raw])) as IDataObject[][];
		expect(fromForm.map((file) => [file.label, file.name, file.sha256])).toEqual([
			['binary property "invoice"', 'invoice.pdf', sha256(PDF)],
			['binary property "notes"', 'notes.csv', sha256(CSV)],
		]);
		expect(fromRaw).toEqual([
			expect.objectContaining({
				mimeType: 'image/png',
				label: 'binary property "data"',
				sha256: sha256(PNG),
			}),
		]);
		expect(fromRaw[0].name).toBeUndefined();
	});

	it('reads only the properties Binary Properties names, in its order', async () => {
		const item = chatTriggerItem('compare', [
			[PNG, 'a.png', 'image/png'],
			[CSV, 'b.csv', 'text/csv'],
			[PDF, 'c.pdf', 'application/pdf'],
		]);
		const [files] = (await probe([item], {
			binaryProperties: ' data2, data0 ,data2',
		})) as IDataObject[][];
		expect(files.map((file) => file.name)).toEqual(['c.pdf', 'a.png']);
	});

	it('hands over no files for an item without binary data', async () => {
		expect(await probe([{ json: { chatInput: 'hi' } }])).toEqual([[]]);
	});

	it('names a missing property and the properties the item has', async () => {
		const item = chatTriggerItem('x', [[PNG, 'a.png', 'image/png']]);
		expect(await probe([item], { binaryProperties: 'data, attachment' })).toEqual({
			error:
				'Options → Binary Properties names "data", "attachment", which this item\'s binary data does not have',
			description:
				"The item's binary properties are: data0. Name those in Options → Binary Properties, or leave it empty to send them all.",
		});
		expect(await probe([{ json: {} }], { binaryProperties: 'data' })).toMatchObject({
			description: expect.stringContaining('The item has no binary data'),
		});
	});

	it.each([
		['n8n 2.x `bytes`', { bytes: 1_073_741_824, fileSize: '1.07 GB' }, '1024.0 MiB'],
		['the rounded fileSize of n8n 1.x', { fileSize: '1.07 GB' }, 'at least 1015.7 MiB'],
	])(
		'refuses a file over max_file_bytes by its size from %s, without reading it',
		async (_from, size, shown) => {
			// The id points at nothing: reading the bytes would fail differently.
			const metadata = {
				data: 'filesystem-v2',
				id: 'filesystem-v2:workflows/none/binary_data/missing',
				mimeType: 'application/pdf',
				fileName: 'scan.pdf',
				...size,
			} as IBinaryData;
			const result = await probe([{ json: {}, binary: { data: { metadata } } }]);
			expect(result).toEqual({
				error: `binary property "data" ("scan.pdf") is ${shown}, over the largest file a run takes (20.0 MiB, max_file_bytes)`,
				description:
					'Send a smaller file, or leave this property out with Options → Binary Properties.',
			});
		},
	);

	it('reads a stored binary at most max_file_bytes + 1 bytes: one that is endless on disk is refused', async () => {
		const linked = { linkedTo: '/dev/zero', fileName: 'scan.png', mimeType: 'image/png' };
		expect(await probe([{ json: {}, binary: { data: linked } }])).toEqual({
			error:
				'binary property "data" ("scan.png") is over the largest file a run takes (20.0 MiB, max_file_bytes)',
			description:
				'Send a smaller file, or leave this property out with Options → Binary Properties.',
		});
	});

	it('refuses files over max_files_bytes together before reading any', async () => {
		const big = (index: number) => ({
			metadata: {
				data: 'filesystem-v2',
				id: `filesystem-v2:missing-${index}`,
				mimeType: 'image/png',
				fileSize: '19 MB',
			} as IBinaryData,
		});
		const result = await probe([{ json: {}, binary: { a: big(1), b: big(2), c: big(3) } }]);
		expect(result).toMatchObject({
			error: expect.stringMatching(
				/^The item's binary properties a, b, c hold at least 52\.9 MiB together, over what a run takes \(50\.0 MiB, max_files_bytes\)$/,
			),
		});
	});
});

describe('Agent Core version 2 with binary items (the run gets them)', () => {
	const server = useScriptedServer();
	const OPENAI_CREDENTIAL = { agentCoreOpenAiApi: { id: '1', name: 'Scripted OpenAI' } };

	/**
	 * Runs the items through Agent Core: version 2 with the OpenAI credential (the engine's own SDK adapter), or
	 * `connected` to a real LangChain ChatOpenAI on the Chat Model input (as n8n's OpenAI Chat Model supplies it),
	 * or version 1.
	 */
	async function run(
		items: ItemSpec[],
		options: IDataObject = {},
		how: 'credential' | 'connected' | 'version 1' = 'credential',
		fields: INodeParameters = {},
	) {
		const model = { __rl: true, mode: 'id', value: 'gpt-4o-mini' };
		const parameters: INodeParameters =
			how === 'version 1'
				? { model }
				: {
						provider: how === 'connected' ? 'connected' : 'openai',
						model,
						...fields,
						options: options as INodeParameters,
					};
		const chatModel = subNode(
			'chatModel',
			NodeConnectionTypes.AiLanguageModel,
			() =>
				new ChatOpenAI({
					apiKey: 'sub-node-key-123456',
					model: 'gpt-4o-mini',
					maxRetries: 0,
					configuration: { baseURL: server().openaiBaseUrl },
				}),
		);
		return await runWorkflow({
			nodes: [
				createInputNode([{}], 'Start'),
				createNode({
					name: 'Trigger',
					type: 'binaryItems',
					parameters: { items: JSON.stringify(items) },
				}),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: how === 'version 1' ? 1 : 2,
					parameters,
					settings: { credentials: OPENAI_CREDENTIAL },
				}),
				...(how === 'connected' ? [createNode({ name: 'Chat Model', type: 'chatModel' })] : []),
			],
			connections: {
				...connectInSequence('Start', 'Trigger', 'Agent Core'),
				...(how === 'connected'
					? {
							'Chat Model': {
								ai_languageModel: [
									[{ node: 'Agent Core', type: NodeConnectionTypes.AiLanguageModel, index: 0 }],
								],
							},
						}
					: {}),
			},
			nodeTypes: { binaryItems, agentCore: new AgentCore(), chatModel },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'sk-test-openai-key-123456', url: server().openaiBaseUrl },
			},
		});
	}

	/** The content parts of the last user message of each model call, as the SDK sent them (OpenAI chat completions). */
	const userParts = (callIndex = 0): IDataObject[] => {
		const messages = server().requests[callIndex].body.messages as IDataObject[];
		const user = messages.filter((message) => message.role === 'user').at(-1)!;
		return Array.isArray(user.content) ? (user.content as IDataObject[]) : [];
	};
	const imagePart = (bytes: Buffer, type = 'image/png') =>
		expect.objectContaining({
			type: 'image_url',
			image_url: expect.objectContaining({
				url: `data:${type};base64,${bytes.toString('base64')}`,
			}),
		});
	const pdfPart = (bytes: Buffer) =>
		expect.objectContaining({
			type: 'file',
			file: expect.objectContaining({
				file_data: `data:application/pdf;base64,${bytes.toString('base64')}`,
			}),
		});

	it('an upload passes through Agent Context prepare to Agent Core, and the model gets it (issue #40)', async () => {
		server().setScript([final('a cat')]);
		const result = await runWorkflow({
			nodes: [
				createInputNode([{}], 'Start'),
				createNode({
					name: 'Trigger',
					type: 'binaryItems',
					parameters: {
						items: JSON.stringify([
							chatTriggerItem('What is this?', [[PNG, 'cat.png', 'image/png']]),
						]),
					},
				}),
				createNode({
					name: 'Prepare',
					type: 'agentContext',
					parameters: { operation: 'prepare', storage: 'memory' },
				}),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
					},
					settings: { credentials: OPENAI_CREDENTIAL },
				}),
			],
			connections: connectInSequence('Start', 'Trigger', 'Prepare', 'Agent Core'),
			nodeTypes: { binaryItems, agentContext: new AgentContext(), agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'sk-test-openai-key-123456', url: server().openaiBaseUrl },
			},
		});
		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(result.outputOf('Prepare')[0].binary?.data0).toBeDefined();
		expect(userParts()).toEqual([expect.objectContaining({ type: 'text' }), imagePart(PNG)]);
	});

	it('fails the item, before any model call, when Binary Properties names a key the item lacks', async () => {
		const result = await run([chatTriggerItem('hi', [[PNG, 'a.png', 'image/png']])], {
			binaryProperties: 'data',
		});
		const error = result.errorOf('Agent Core') as Error & { description?: string };
		expect(error.message).toBe(
			'Options → Binary Properties names "data", which this item\'s binary data does not have',
		);
		expect(error.description).toContain("The item's binary properties are: data0.");
		expect(server().requests).toHaveLength(0);
	});

	it('fails the item, before any model call, for a file n8n says is over max_file_bytes', async () => {
		const metadata = {
			data: 'filesystem-v2',
			id: 'filesystem-v2:missing',
			mimeType: 'image/png',
			fileName: 'huge.png',
			bytes: 60 * 1024 * 1024,
		} as IBinaryData;
		const result = await run([{ json: { chatInput: 'look' }, binary: { data: { metadata } } }]);
		expect(result.errorOf('Agent Core')?.message).toBe(
			'binary property "data" ("huge.png") is 60.0 MiB, over the largest file a run takes (20.0 MiB, max_file_bytes)',
		);
		expect(server().requests).toHaveLength(0);
	});

	it('turns a missing property into an error item under Continue on Fail, the other items still run', async () => {
		server().setScript(final('fine'));
		const result = await runWorkflow({
			nodes: [
				createInputNode([{}], 'Start'),
				createNode({
					name: 'Trigger',
					type: 'binaryItems',
					parameters: {
						items: JSON.stringify([{ json: { chatInput: 'a' } }, { json: { chatInput: 'b' } }]),
					},
				}),
				createNode({
					name: 'Agent Core',
					type: 'agentCore',
					typeVersion: 2,
					parameters: {
						provider: 'openai',
						model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
						options: { binaryProperties: '={{ $json.chatInput === "a" ? "data" : "" }}' },
					},
					settings: { credentials: OPENAI_CREDENTIAL, continueOnFail: true },
				}),
			],
			connections: connectInSequence('Start', 'Trigger', 'Agent Core'),
			nodeTypes: { binaryItems, agentCore: new AgentCore() },
			credentials: {
				agentCoreOpenAiApi: { apiKey: 'sk-test-openai-key-123456', url: server().openaiBaseUrl },
			},
		});
		const output = result.outputOf('Agent Core');
		expect(output[0].json).toEqual({
			error:
				'Options → Binary Properties names "data", which this item\'s binary data does not have',
		});
		expect(output[1].json).toMatchObject({ final_answer: 'fine' });
	});

	it('version 1 sends no files: a Chat Trigger upload leaves the request as before', async () => {
		server().setScript(final('ok'));
		const result = await run(
			[chatTriggerItem('what is this?', [[PNG, 'photo.png', 'image/png']])],
			{},
			'version 1',
		);
		expect(result.errorOf('Agent Core')).toBeUndefined();
		expect(JSON.stringify(server().requests[0].body)).not.toContain(PNG.toString('base64'));
	});

	it('a version 2 item without binary data runs as before', async () => {
		server().setScript(final('ok'));
		const result = await run([{ json: { chatInput: 'hello' } }]);
		expect(result.outputOf('Agent Core')[0].json).toMatchObject({ final_answer: 'ok' });
	});

	// The request the engine builds from the files (issue #40's engine part, on main). Their shape is the
	// provider's: OpenAI chat completions `image_url` parts with a data: URL, `file` parts with `file_data`
	// (platform.openai.com/docs/guides/images-vision, /docs/guides/pdf-files). Merged with main at 64fa180 the
	// option and refusal tests pass; the part-shape tests pass once the adapters put files on the wire.
	describe('the request the model gets (waits for the engine to send files)', () => {
		it('sends a Chat Trigger upload (an image) as an image_url part of the user message, by default', async () => {
			server().setScript(final('a cat'));
			const result = await run([
				chatTriggerItem('what is this?', [[PNG, 'photo.png', 'image/png']]),
			]);
			expect(result.errorOf('Agent Core')).toBeUndefined();
			expect(userParts()).toEqual(expect.arrayContaining([imagePart(PNG)]));
			expect(JSON.stringify(result.outputOf('Agent Core')[0].json)).not.toContain(
				PNG.toString('base64'),
			);
		});

		it('sends it through a connected chat model sub-node (LangChain ChatOpenAI) in the same wire shape', async () => {
			server().setScript(final('a cat'));
			const result = await run(
				[chatTriggerItem('what is this?', [[PNG, 'photo.png', 'image/png']])],
				{},
				'connected',
			);
			expect(result.errorOf('Agent Core')).toBeUndefined();
			expect(server().requests[0].headers.authorization).toBe('Bearer sub-node-key-123456');
			expect(userParts()).toEqual(expect.arrayContaining([imagePart(PNG)]));
		});

		it('leaves the image out with Automatically Passthrough Binary Images off', async () => {
			server().setScript(final('no image'));
			const result = await run(
				[chatTriggerItem('what is this?', [[PNG, 'photo.png', 'image/png']])],
				{ passthroughBinaryImages: false },
			);
			expect(result.errorOf('Agent Core')).toBeUndefined();
			expect(JSON.stringify(server().requests[0].body)).not.toContain(PNG.toString('base64'));
			// The engine's notice names the file and says it was left out (its wording is the engine's).
			expect(JSON.stringify(result.outputOf('Agent Core')[0].json.trace)).toMatch(
				/data0.*photo\.png.*left out/,
			);
		});

		it('leaves a multipart PDF out by default, and sends it as a file part with Passthrough Binary PDFs on', async () => {
			const item = webhookFormItem('total?', { invoice: [PDF, 'invoice.pdf', 'application/pdf'] });
			server().setScript([final('left out'), final('42.50')]);
			await run([item]);
			expect(JSON.stringify(server().requests[0].body)).not.toContain(PDF.toString('base64'));
			await run([item], { passthroughBinaryPdfs: true });
			expect(userParts(1)).toEqual(expect.arrayContaining([pdfPart(PDF)]));
		});

		it('sends a Webhook raw body (an image under data) and a multipart CSV as text', async () => {
			server().setScript([final('seen'), final('read')]);
			// A raw body has no JSON to hold the prompt: here it comes in the query string.
			await run([webhookRawItem('what is this?', PNG, 'image/png')], {}, 'credential', {
				prompt: '={{ $json.query.prompt }}',
			});
			expect(userParts(0)).toEqual(expect.arrayContaining([imagePart(PNG)]));
			await run([webhookFormItem('sum it', { notes: [CSV, 'notes.csv', 'text/csv'] })]);
			expect(JSON.stringify(server().requests[1].body.messages)).toContain('A-17,42.50');
		});

		it('sends only the property Binary Properties names', async () => {
			server().setScript(final('one'));
			const other = Buffer.concat([PNG, Buffer.from('other')]);
			await run(
				[
					chatTriggerItem('which?', [
						[PNG, 'a.png', 'image/png'],
						[other, 'b.png', 'image/png'],
					]),
				],
				{ binaryProperties: 'data1' },
			);
			const images = userParts().filter((part) => part.type === 'image_url');
			expect(images).toEqual([imagePart(other)]);
		});

		it('refuses a file whose bytes are no accepted type, naming its binary property, before any model call', async () => {
			const result = await run([
				webhookFormItem('run it', { attachment: [ELF, 'photo.png', 'image/png'] }),
			]);
			const error = result.errorOf('Agent Core') as Error & { description?: string };
			expect(error.message).toContain(
				'binary property "attachment" "photo.png" (declared image/png) is an ELF executable',
			);
			expect(error.description).toContain('Options → Binary Properties');
			expect(server().requests).toHaveLength(0);
		});

		it.each([
			['an escape sequence and a line break', 'a\u001b[31m\nb.png', '"a\\x1b[31m\\nb.png"'],
			['a right-to-left override', 'invoice\u202egnp.exe', '"invoice\\u202egnp.exe"'],
		])(
			'refuses a file name with %s, shown escaped in the error (issue #48)',
			async (_, fileName, shown) => {
				const result = await run([
					webhookFormItem('run it', { 'at\u202etach': [PNG, fileName, 'image/png'] }),
				]);
				const error = result.errorOf('Agent Core') as Error & { description?: string };
				expect(error.message).toContain(
					`binary property "at\\u202etach": the file name ${shown} holds a control or bidirectional character`,
				);
				expect(`${error.message}${error.description}`).not.toMatch(/[\u0000-\u001f\u202a-\u202e]/);
				expect(server().requests).toHaveLength(0);
			},
		);
	});
});
