/**
 * What the test does in n8n's editor, for n8n 1.123 and 2.41 alike. Selectors are n8n's own data-test-id
 * attributes (what n8n's Playwright suite uses), labels are what a user reads.
 */
import type { Locator, Page } from 'playwright-core';

/** Code run inside the page: no DOM types in this project's tsconfig, so the page's globals are reached loosely. */
type PageGlobals = { localStorage: { getItem(key: string): string | null } };

export async function signIn(
	page: Page,
	baseUrl: string,
	owner: { email: string; password: string },
): Promise<void> {
	await page.goto(`${baseUrl}/signin`);
	await page.locator('input[name="emailOrLdapLoginId"]').fill(owner.email);
	await page.locator('input[name="password"]').fill(owner.password);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30000 });
}

/**
 * The workflow's id, from n8n's REST API as the signed-in editor calls it: the session cookie is bound to
 * the editor's `browser-id` header, so the request runs inside the page.
 */
export async function workflowIdByName(page: Page, name: string): Promise<string> {
	const answer = await page.evaluate(async () => {
		const browserId =
			(globalThis as unknown as PageGlobals).localStorage.getItem('n8n-browserId') ?? '';
		const response = await fetch('/rest/workflows', { headers: { 'browser-id': browserId } });
		return { status: response.status, text: await response.text() };
	});
	if (answer.status !== 200)
		throw new Error(
			`GET /rest/workflows answered HTTP ${answer.status}: ${answer.text.slice(0, 500)}`,
		);
	const workflows: Array<{ id: string; name: string }> = JSON.parse(answer.text).data;
	const workflow = workflows.find((candidate) => candidate.name === name);
	if (!workflow)
		throw new Error(
			`no workflow named "${name}" among: ${workflows.map((candidate) => candidate.name).join(', ')}`,
		);
	return workflow.id;
}

export function canvasNode(page: Page, name: string): Locator {
	return page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
}

/** Opens the workflow's canvas and waits for the node `waitForNode` on it. */
export async function openWorkflow(
	page: Page,
	baseUrl: string,
	id: string,
	waitForNode: string,
): Promise<void> {
	await page.goto(`${baseUrl}/workflow/${id}`);
	await canvasNode(page, waitForNode).waitFor({ state: 'visible', timeout: 60000 });
	await takeOverEditing(page);
}

/**
 * n8n 2.x keeps one editor per workflow: a tab that opens it while another session still holds it (a
 * browser closed a moment ago) shows "Editing in another tab" with an "Edit here" button over the canvas.
 */
async function takeOverEditing(page: Page): Promise<void> {
	const editHere = page.getByRole('button', { name: 'Edit here' });
	await editHere.waitFor({ state: 'visible', timeout: 1500 }).catch(() => undefined);
	if (await editHere.isVisible()) await editHere.click();
}

export function nodePanel(page: Page): Locator {
	return page.locator('[data-test-id="ndv"]');
}

export async function openNodePanel(page: Page, name: string): Promise<Locator> {
	await takeOverEditing(page);
	await canvasNode(page, name).dblclick();
	const panel = nodePanel(page);
	await panel
		.locator('[data-test-id="node-parameters"]')
		.waitFor({ state: 'visible', timeout: 30000 });
	return panel;
}

/** "Back to canvas" (1.x) or the panel's close button (2.x). */
export async function closeNodePanel(page: Page): Promise<void> {
	const panel = nodePanel(page);
	if (!(await panel.isVisible())) return;
	await page
		.locator('[data-test-id="back-to-canvas"], [data-test-id="ndv-close-button"]')
		.first()
		.click();
	await panel.waitFor({ state: 'hidden', timeout: 15000 });
}

/** The labels of the parameters the panel shows now, in order (the first line of each label). */
export async function visibleParameterLabels(panel: Locator): Promise<string[]> {
	// The Settings tab is rendered too, hidden; innerText of a hidden element is its whole text, so filter first.
	const texts: string[] = await panel
		.locator('[data-test-id="node-parameters"] [data-test-id="parameter-item"] label')
		.evaluateAll((labels: any[]) =>
			labels.filter((label) => label.checkVisibility()).map((label) => label.innerText),
		);
	return texts.map((text) => text.split('\n')[0].trim()).filter(Boolean);
}

/** The model IDs the Model field's "From list" mode offers (it asks the credential's endpoint). */
export async function listedModels(page: Page, panel: Locator): Promise<string[]> {
	const locator = panel.locator('[data-test-id="resource-locator-model"]');
	await locator.locator('[data-test-id="rlc-mode-selector"]').click();
	await page.getByRole('option', { name: /^from list$/i }).click();
	await locator.locator('[data-test-id="rlc-input"]').click();
	const items = page.locator('[data-test-id="rlc-item"]');
	await items.first().waitFor({ state: 'visible', timeout: 20000 });
	const models = (await items.allInnerTexts()).map((text) => text.trim());
	await page.keyboard.press('Escape');
	return models;
}

/**
 * The providers offered where n8n lets the user choose one. n8n moves a parameter that decides which
 * credential type applies (here Provider) out of the panel into the credential dialog: "Connect using"
 * radio buttons (1.x) or a mode dropdown (2.x). Opens "Create new credential", reads, and closes it unsaved.
 */
export async function providersInCredentialDialog(
	page: Page,
	panel: Locator,
	screenshot: () => Promise<unknown>,
): Promise<string[]> {
	await panel.locator('[data-test-id="node-credentials-select"]').first().click();
	await page.getByText('Create new credential').click();
	const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
	await dialog.waitFor({ state: 'visible', timeout: 15000 });
	let providers: string[];
	const modeDropdown = dialog.locator('[data-test-id="credential-mode-dropdown-trigger"]');
	const authTypeSelector = dialog.locator('[data-test-id="node-auth-type-selector"]');
	await modeDropdown.or(authTypeSelector).first().waitFor({ state: 'visible', timeout: 15000 });
	if (await modeDropdown.isVisible()) {
		await modeDropdown.click();
		const items = page.getByRole('menuitem').or(page.getByRole('menuitemradio'));
		await items.first().waitFor({ state: 'visible', timeout: 10000 });
		providers = (await items.allInnerTexts()).map((text) => text.trim());
		await screenshot();
		await page.keyboard.press('Escape');
	} else {
		providers = (await authTypeSelector.locator('label').allInnerTexts())
			.map((text) => text.trim())
			.filter(Boolean);
		await screenshot();
	}
	for (let attempt = 0; attempt < 3 && (await dialog.isVisible()); attempt++) {
		await page.keyboard.press('Escape');
		await dialog.waitFor({ state: 'hidden', timeout: 3000 }).catch(() => undefined);
	}
	if (await dialog.isVisible()) throw new Error('the credential dialog did not close on Escape');
	return providers;
}

/**
 * Clicks "Execute workflow", which makes the Webhook trigger listen on /webhook-test/<path>, and sends the
 * request it waits for (retried while n8n still answers 404, i.e. before the test webhook is registered).
 */
export async function executeWorkflowThroughTestWebhook(
	page: Page,
	baseUrl: string,
	webhookPath: string,
	body: unknown,
): Promise<{ status: number; text: string }> {
	const button = page.locator('[data-test-id="execute-workflow-button"]');
	await button.click();
	await page
		.getByText('Waiting for trigger event')
		.first()
		.waitFor({ state: 'visible', timeout: 15000 });
	const deadline = Date.now() + 30000;
	for (;;) {
		const response = await fetch(`${baseUrl}/webhook-test/${webhookPath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(90000),
		});
		const text = await response.text();
		if (response.status !== 404) return { status: response.status, text };
		if (Date.now() > deadline)
			throw new Error(
				`/webhook-test/${webhookPath} still answered 404 30 s after "Execute workflow": ${text.slice(0, 300)}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** Waits for the canvas node's green check. */
export async function waitForNodeSuccess(page: Page, name: string): Promise<void> {
	await canvasNode(page, name)
		.locator('[data-test-id="canvas-node-status-success"]')
		.waitFor({ state: 'visible', timeout: 60000 });
}

/** Switches the output pane to its display mode `mode` and returns the pane's text. */
export async function outputPaneText(
	panel: Locator,
	mode: 'table' | 'json',
	mustContain: string,
): Promise<string> {
	const output = panel.locator('[data-test-id="output-panel"]');
	await output.locator(`[data-test-id="radio-button-${mode}"]`).click();
	await output.getByText(mustContain).first().waitFor({ state: 'visible', timeout: 15000 });
	return output.innerText();
}

/**
 * Opens the Logs panel at the bottom of the canvas (a click on its header toggles it, so only when its
 * body is not shown yet) as an overview at full width: n8n selects the last entry after a run and shows
 * its details beside a compact overview, which hides each entry's duration and token count; a click on the
 * selected entry unselects it and closes the details.
 */
export async function openLogsPanel(page: Page): Promise<Locator> {
	const panel = page.locator('[data-test-id="logs-panel"]');
	const body = panel.locator('[data-test-id="logs-overview-body"]');
	if (!(await body.isVisible()))
		await panel.locator('[data-test-id="logs-overview-header"]').click();
	await body.getByRole('treeitem').first().waitFor({ state: 'visible', timeout: 15000 });
	const selected = body.getByRole('treeitem', { selected: true });
	if (await selected.count()) await selected.first().click();
	await panel.locator('[data-test-id="log-details"]').waitFor({ state: 'hidden', timeout: 15000 });
	return panel;
}

/**
 * The entries of the open Logs panel in the tree's order (every entry starts expanded, children right
 * after their parent): each one's text on one line and its depth in the tree (the row's --indent-depth
 * style, 0 at the top).
 */
export async function logEntries(panel: Locator): Promise<Array<{ text: string; depth: number }>> {
	return panel
		.locator('[data-test-id="logs-overview-body"]')
		.getByRole('treeitem')
		.evaluateAll((items: any[]) =>
			items.map((item) => {
				const indented = item.querySelector('[style*="--indent-depth"]');
				return {
					text: item.innerText.replace(/\s+/g, ' ').trim(),
					depth: indented ? Number(indented.style.getPropertyValue('--indent-depth')) : NaN,
				};
			}),
		);
}
