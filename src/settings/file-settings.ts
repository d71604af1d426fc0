// The settings of files and images (issue #40): rows of the settings table (settings.ts spreads them in), declared once here.
import * as check from './setting-checks';
import type { Setting } from './setting-types';

const MIB = 1024 * 1024;

/**
 * Defaults that fit the providers' own limits: OpenAI takes images up to 50 MB per request and PDFs up to 32 MB
 * (platform.openai.com/docs/guides/images-vision, /docs/guides/pdf-files), Anthropic 32 MB per request and 100
 * images (docs.anthropic.com/en/docs/build-with-claude/vision), Gemini 20 MB of inline data per request
 * (ai.google.dev/gemini-api/docs/image-understanding); n8n's AI Agent caps binary passthrough at 50 MB.
 */
export const FILE_SETTINGS = {
	/** Images (PNG, JPEG, GIF, WebP) go to the model as image parts; off = they are left out, with a notice. */
	pass_images: {
		default: true,
		check: check.boolean,
		meaning:
			'images (PNG, JPEG, GIF, WebP, by their bytes) go to the model with the message; off = left out with a notice in the trace (see *Files and images*)',
		panel: {
			collection: 'options',
			name: 'passthroughBinaryImages',
			displayName: 'Automatically Passthrough Binary Images',
			type: 'boolean',
			since: 2,
			description:
				"Whether images in the input item's binary data are sent to the model (as n8n's AI Agent does)",
		},
	},
	/** PDFs go to the model as document parts; off (the default, as n8n's AI Agent) = left out, with a notice. */
	pass_pdfs: {
		default: false,
		check: check.boolean,
		meaning:
			'PDF documents go to the model as document parts (OpenAI `file`, Anthropic `document`, Gemini `inlineData`); off = left out with a notice',
		panel: {
			collection: 'options',
			name: 'passthroughBinaryPdfs',
			displayName: 'Passthrough Binary PDFs',
			type: 'boolean',
			since: 2,
			description:
				"Whether PDFs in the input item's binary data are sent to the model; the model must read PDFs",
		},
	},
	/** The largest file taken, in bytes. */
	max_file_bytes: {
		default: 20 * MIB,
		check: check.integer(1, 512 * MIB),
		meaning:
			'the largest file a run takes, in bytes (default 20 MiB, what every provider accepts inline)',
	},
	/** All of a run's files together, in bytes (the input's and what tools return). */
	max_files_bytes: {
		default: 50 * MIB,
		check: check.integer(1, 2048 * MIB),
		meaning:
			"a run's files together, in bytes, those a tool returns included (default 50 MiB, n8n's AI Agent's cap)",
	},
	/** How many files a run takes, those tools return included. */
	max_files: {
		default: 20,
		check: check.integer(0, 1000),
		meaning: 'how many files a run takes, those a tool returns included (default 20; 0 = none)',
	},
} satisfies Record<string, Setting>;
