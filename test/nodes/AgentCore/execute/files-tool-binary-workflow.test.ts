// A workflow tool whose sub-workflow returns items with binary data gives its images and PDFs to the engine as files
// of a WithFiles (issue #40). The tool's execute is called directly with a stand-in for n8n's execute functions:
// executeWorkflow answers items, helpers.getBinaryStream serves binaries n8n keeps by id.
import { Readable } from 'node:stream';
import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import {
	MAX_TOOL_BINARY_BYTES,
	MAX_TOOL_BINARY_FILES,
} from '../../../../nodes/AgentCore/execute/inputs/tool-binary';
import { readWorkflowTools } from '../../../../nodes/AgentCore/execute/inputs/workflow-tools';
import { WithFiles } from '../../../../src/tools/tool';

const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
	'base64',
);
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

/** A stand-in for the node's execute functions: the sub-workflow answers `items`; stored binaries by id. */
function fakeContext(items: INodeExecutionData[], stored: Record<string, () => Readable> = {}) {
	const streamsAsked: string[] = [];
	const context = {
		getExecutionId: () => 'exec-1',
		getWorkflow: () => ({ id: 'parent' }),
		executeWorkflow: async () => ({ executionId: 'sub-1', data: [items] }),
		helpers: {
			getBinaryStream: async (id: string) => {
				streamsAsked.push(id);
				return stored[id]();
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, streamsAsked };
}

const inMemory = (data: Buffer, mimeType: string, fileName?: string): IBinaryData => ({
	data: data.toString('base64'),
	mimeType,
	...(fileName ? { fileName } : {}),
});

async function call(items: INodeExecutionData[], stored?: Record<string, () => Readable>) {
	const { context, streamsAsked } = fakeContext(items, stored);
	const [tool] = readWorkflowTools(
		context,
		0,
		[{ name: 'make_chart', workflowId: 'wf-1' }],
		[],
		new Set(),
	);
	const result = await tool.execute({}, { signal: new AbortController().signal, settings: {} });
	return { result, streamsAsked };
}

describe('a workflow tool whose sub-workflow returns binary data', () => {
	it('gives an image held in memory and a PDF kept by id to the model, each named in the observation', async () => {
		const { result, streamsAsked } = await call(
			[
				{ json: { title: 'Q3' }, binary: { chart: inMemory(PNG, 'image/png', 'q3.png') } },
				{
					json: { title: 'report' },
					binary: {
						report: { data: 'filesystem-v2', id: 'fs:pdf-1', mimeType: 'application/pdf' },
					},
				},
			],
			{ 'fs:pdf-1': () => Readable.from([PDF]) },
		);
		expect(result).toBeInstanceOf(WithFiles);
		const { observation, files } = result as WithFiles;
		expect(observation).toBe(
			'[{"title":"Q3"},{"title":"report"}]\n' +
				`[file 1: image/png, ${PNG.length} bytes, returned as a file] binary property "chart" of item 1\n` +
				`[file 2: application/pdf, ${PDF.length} bytes, returned as a file] binary property "report" of item 2`,
		);
		expect(files.map(({ name, mimeType, label }) => ({ name, mimeType, label }))).toEqual([
			{
				name: 'q3.png',
				mimeType: 'image/png',
				label: `binary property "chart" of item 1 of make_chart's result`,
			},
			{
				name: undefined,
				mimeType: 'application/pdf',
				label: `binary property "report" of item 2 of make_chart's result`,
			},
		]);
		expect(Buffer.from(files[0].data).equals(PNG)).toBe(true);
		expect(Buffer.from(files[1].data).equals(PDF)).toBe(true);
		expect(streamsAsked).toEqual(['fs:pdf-1']);
	});

	it('returns the items as before when none holds binary data', async () => {
		const { result } = await call([{ json: { ok: true } }]);
		expect(result).toEqual({ ok: true });
	});

	it('notes a binary of another type instead of passing it', async () => {
		const { result } = await call([
			{ json: {}, binary: { data: inMemory(Buffer.from('a,b'), 'text/csv') } },
		]);
		expect(result).toBe(
			'{}\n[binary property "data" of item 1 (text/csv): not an image or PDF, not shown]',
		);
	});

	it('stops reading a stored binary past the cap and leaves it out', async () => {
		let served = 0;
		const endless = () =>
			new Readable({
				read() {
					served += 1024 * 1024;
					this.push(Buffer.alloc(1024 * 1024));
				},
			});
		const { result } = await call(
			[{ json: {}, binary: { big: { data: '', id: 'fs:big', mimeType: 'image/png' } } }],
			{ 'fs:big': endless },
		);
		expect(result).toBe(
			`{}\n[binary property "big" of item 1 (image/png): over the ${MAX_TOOL_BINARY_BYTES.toLocaleString('en-US')} bytes a tool's file may have, left out]`,
		);
		expect(served).toBeLessThan(MAX_TOOL_BINARY_BYTES + 4 * 1024 * 1024);
	});

	it('never decodes an in-memory base64 string over the cap (100 MB of it)', async () => {
		const { result } = await call([
			{ json: {}, binary: { big: { data: 'A'.repeat(100 * 1024 * 1024), mimeType: 'image/png' } } },
		]);
		expect(result).toMatch(/over the [\d,]+ bytes a tool's file may have, left out\]$/);
	});

	it('takes at most 20 of 1,000 images and says how many it left out', async () => {
		const items = Array.from({ length: 1_000 }, () => ({
			json: {},
			binary: { data: inMemory(PNG, 'image/png') },
		}));
		const { result } = await call(items);
		const { observation, files } = result as WithFiles;
		expect(files).toHaveLength(MAX_TOOL_BINARY_FILES);
		expect(observation).toMatch(/\[980 more images or PDFs left out/);
	});
});
