// An http_request answer that is an image or a PDF (issue #40): its bytes go to the engine as a file of a WithFiles.
import type { FetchedResponse } from './fetch';
import { fileNameFrom } from '../file-name';
import { renderObservation } from './observation';
import { WithFiles } from '../tool';

/** The Content-Types whose body is returned as a file; the engine still reads the real type from the bytes. */
const FILE_MEDIA_TYPE = /^(image\/(png|jpeg|gif|webp)|application\/pdf)$/;

/** The answer's media type (`image/png`), lower-cased, without parameters. */
function mediaTypeOf(response: FetchedResponse): string {
	return (response.contentType ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * The answer as files when its Content-Type is an image (PNG, JPEG, GIF, WebP) or a PDF, else undefined (rendered
 * as text as before). A whole body becomes one file, named after the final URL's last path segment (plain:
 * no slashes or control characters; "download" when there is none), and the observation is the summary line
 * followed by a line saying it is returned as a file. A body cut at max_response_bytes, or one whose
 * content-encoding could not be decoded, is never given (a cut image is garbage): the observation says why.
 */
export function fileAnswer(response: FetchedResponse): WithFiles | string | undefined {
	const mediaType = mediaTypeOf(response);
	if (!FILE_MEDIA_TYPE.test(mediaType) || response.body.length === 0) return undefined;
	const summary = renderObservation({ ...response, body: response.body, undecodable: undefined })
		.split('\n')
		.filter((line) => !line.startsWith('<binary '))
		.join('\n');
	const size = `${response.body.length.toLocaleString('en-US')} bytes`;
	if (response.undecodable)
		return `${summary}\n<${mediaType} in ${response.undecodable}: not given to the model>`;
	if (response.truncated)
		return (
			`${summary}\n<${mediaType} larger than max_response_bytes (${size} read): not given to the model, ` +
			'as a cut file cannot be read; ask for a smaller one or raise max_response_bytes>'
		);
	// Named by origin and path only: the query, the fragment and any user:password of the URL stay out of the label.
	let path = '';
	let where = 'the http_request answer';
	try {
		const url = new URL(response.finalUrl);
		path = url.pathname;
		where = `the http_request answer from ${url.origin}${url.pathname}`;
	} catch {
		// No URL to name it after: the fallback name.
	}
	const data = new Uint8Array(response.body.buffer, response.body.byteOffset, response.body.length);
	return new WithFiles(`${summary}\n<${mediaType}, ${size} (returned as a file)>`, [
		{
			name: fileNameFrom(path, 'download'),
			mimeType: mediaType,
			data,
			label: where,
		},
	]);
}
