// The urls check: every URL's real host and every bare host must be allowed; subdomains only through `*.`.
import { checkGuardrails, findInValue, findMatches } from '../../src/guardrails';

const [ownApi] = checkGuardrails([
	{
		name: 'own-api',
		check: 'urls',
		allowed_hosts: ['api.example.com', '*.example.org', 'bücher.de'],
		on: ['tool_call'],
		action: 'deny_call',
	},
]);
const refused = (text: string) =>
	findMatches(ownApi, text).map(({ start, end }) => text.slice(start, end));

describe('the urls check', () => {
	test('allowed hosts pass, in URLs and bare, whatever their case', () => {
		expect(
			refused(
				'GET https://API.example.com/v1?q=1 then api.example.com and https://a.b.example.org/x',
			),
		).toEqual([]);
	});

	test('a host not allowed is found, in a URL and bare', () => {
		expect(refused('see https://evil.com/x')).toEqual(['https://evil.com/x', 'evil.com']);
		expect(refused('curl evil.example.net')).toEqual(['evil.example.net']);
	});

	test('subdomains only when written *.: example.org itself and a sub of api.example.com are refused', () => {
		expect(refused('example.org')).toEqual(['example.org']);
		expect(refused('v2.api.example.com')).toEqual(['v2.api.example.com']);
		expect(refused('evilexample.org')).toEqual(['evilexample.org']);
	});

	test('a URL with userinfo is judged by its real host', () => {
		expect(refused('https://api.example.com@evil.com/')).toContain('evil.com');
		expect(refused('https://api.example.com:pw@evil.com/').length).toBeGreaterThan(0);
	});

	test('hosts a URL parser reads differently from the text are judged as it reads them', () => {
		expect(refused('http://0x7f000001/')).toEqual(['http://0x7f000001/']);
		expect(refused('http://%65vil.com/')).not.toEqual([]);
		expect(refused('evil。com')).toEqual(['evil。com']);
		expect(refused('https://BÜCHER.de/x and bücher.de')).toEqual([]);
		expect(refused('xn--bcher-kva.de')).toEqual([]);
	});

	test('file names and numbers are not hosts; dotted quads are', () => {
		expect(refused('open report.pdf, index.ts and v1.2.3 at 3.14')).toEqual([]);
		expect(refused('curl 169.254.169.254')).toEqual(['169.254.169.254']);
	});

	test('a URL hidden in JSON args is found with its path, keys included', () => {
		const args = { request: { body: '{"next":"https://evil.com/steal"}' }, 'evil.net': true };
		const finds = findInValue(ownApi, args);
		expect(finds.map((find) => [find.path, find.in])).toEqual(
			expect.arrayContaining([
				[['request', 'body'], 'value'],
				[['evil.net'], 'key'],
			]),
		);
	});
});
