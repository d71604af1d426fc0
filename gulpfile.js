// Copies node and credential icons next to the compiled files, where n8n looks for them.
const { src, dest } = require('gulp');

// The codex files (*.node.json) go along: they give the nodes their categories and aliases in n8n.
function copyIcons() {
	src('nodes/**/*.{png,svg,json}').pipe(dest('dist/nodes'));
	return src('credentials/**/*.{png,svg}').pipe(dest('dist/credentials'));
}

exports['build:icons'] = copyIcons;
