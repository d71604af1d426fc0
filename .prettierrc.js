// The formatter as n8n's node tooling scaffolds it for community nodes (@n8n/node-cli's template .prettierrc.js),
// unchanged: `npm run format` writes it, `npm run lint` checks it.
module.exports = {
	semi: true,
	trailingComma: 'all',
	bracketSpacing: true,
	useTabs: true,
	tabWidth: 2,
	arrowParens: 'always',
	singleQuote: true,
	quoteProps: 'as-needed',
	endOfLine: 'lf',
	printWidth: 100,
};
