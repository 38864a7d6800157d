/** An MCP content block (the kinds a tool result may carry). */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } }
  | { type: 'resource_link'; uri: string; name: string };

const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)(?:;[^,;]*)*;base64,([A-Za-z0-9+/]*={0,2})$/i;

/**
 * One ToolResult `media` entry as the nearest MCP content: a base64 `data:` URL becomes an image or
 * audio block by its MIME type (any other type an embedded blob); anything else (PicoClaw's
 * `media://` refs, URLs, paths) is a reference, so a resource link.
 */
export function mediaContent(ref: string, index: number): McpContent {
  const data = DATA_URL.exec(ref);
  if (data && data[2].length % 4 === 0) {
    const mimeType = data[1].toLowerCase();
    if (mimeType.startsWith('image/')) return { type: 'image', data: data[2], mimeType };
    if (mimeType.startsWith('audio/')) return { type: 'audio', data: data[2], mimeType };
    return { type: 'resource', resource: { uri: `media:${index}`, mimeType, blob: data[2] } };
  }
  return { type: 'resource_link', uri: ref, name: linkName(ref, index) };
}

/** The last path segment of a reference, or a numbered name when it has none (or is data). */
function linkName(ref: string, index: number): string {
  if (ref.startsWith('data:')) return `media-${index}`;
  const last = ref.split(/[?#]/)[0].split('/').filter(Boolean).at(-1);
  return last && !last.endsWith(':') ? last : `media-${index}`;
}
