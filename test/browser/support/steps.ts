/**
 * Named, bounded steps. A step that fails or overruns throws an error naming it, with a screenshot of the
 * page at that moment and the tail of n8n's log; every step's duration is kept for the summary.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';

export interface StepContext {
	/** The page to photograph when a step fails (absent before the browser started). */
	page?: Page;
	screenshotFolder: string;
	/** Appended to failure messages, e.g. the tail of n8n's log. */
	diagnostics?: () => string;
}

export class Steps {
	private readonly durations: Array<{ name: string; ms: number; failed: boolean }> = [];
	private failures = 0;

	constructor(private readonly context: StepContext) {}

	set page(page: Page | undefined) {
		this.context.page = page;
	}

	/** Runs `work` as the step `name`, failing it after `timeoutMs`. */
	async run<T>(name: string, work: () => Promise<T>, timeoutMs = 60000): Promise<T> {
		const started = Date.now();
		let timer: NodeJS.Timeout | undefined;
		const overrun = new Promise<never>((_, reject) => {
			timer = setTimeout(
				() => reject(new Error(`did not finish within ${timeoutMs / 1000} s`)),
				timeoutMs,
			);
		});
		try {
			const result = await Promise.race([work(), overrun]);
			this.durations.push({ name, ms: Date.now() - started, failed: false });
			return result;
		} catch (error) {
			this.durations.push({ name, ms: Date.now() - started, failed: true });
			throw await this.failure(name, error);
		} finally {
			clearTimeout(timer);
		}
	}

	/** Saves a screenshot of the whole viewport as `<folder>/<file>`; returns its path. */
	async screenshot(file: string): Promise<string> {
		const target = path.join(this.context.screenshotFolder, file);
		if (!this.context.page) throw new Error(`screenshot ${file}: no page to photograph`);
		try {
			await this.context.page.screenshot({ path: target, timeout: 15000 });
		} catch (error) {
			throw new Error(`screenshot ${file} failed: ${(error as Error).message.split('\n')[0]}`);
		}
		return target;
	}

	/** One line per step with its duration, for the end of the run. */
	summary(): string {
		return this.durations
			.map(
				({ name, ms, failed }) =>
					`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${failed ? 'FAILED ' : ''}${name}`,
			)
			.join('\n');
	}

	private async failure(name: string, error: unknown): Promise<Error> {
		const message = (error as Error)?.message ?? String(error);
		let screenshot = '';
		if (this.context.page && !this.context.page.isClosed()) {
			const file = `failure-${String(++this.failures).padStart(2, '0')}-${name
				.replace(/[^a-z0-9]+/gi, '-')
				.toLowerCase()
				.slice(0, 60)}.png`;
			try {
				screenshot = `\nscreenshot: ${await this.screenshot(file)}`;
			} catch (screenshotError) {
				screenshot = `\n(no screenshot: ${(screenshotError as Error).message.split('\n')[0]})`;
			}
		}
		const diagnostics = this.context.diagnostics?.() ?? '';
		const failure = new Error(
			`step "${name}" failed: ${message}${screenshot}${diagnostics ? `\n${diagnostics}` : ''}`,
		);
		failure.stack = failure.message;
		return failure;
	}
}

/** Empties and creates the screenshot folder of one run. */
export function freshFolder(folder: string): string {
	fs.rmSync(folder, { recursive: true, force: true });
	fs.mkdirSync(folder, { recursive: true });
	return folder;
}
