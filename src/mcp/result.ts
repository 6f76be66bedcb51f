// An MCP tool result as the text the model reads: text blocks as they are, images/audio/binary
// resources as a short note (the conversation is text), structured content as JSON unless a
// text block already carries it. The agent truncates it like any other tool result.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../agent/tools.ts';

function size(base64: string): string {
  const bytes = Buffer.byteLength(base64, 'base64');
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image: ${block.mimeType}, ${size(block.data)}; not shown]`;
    case 'audio':
      return `[audio: ${block.mimeType}, ${size(block.data)}; not played]`;
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>${block.description ? ` — ${block.description}` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') return `[resource <${resource.uri}>]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource <${resource.uri}>: ${resource.mimeType ?? 'binary'}, ${size(blob)}; not shown]`;
    }
    default:
      return `[${(block as { type?: unknown }).type ?? 'unknown'} content; not shown]`;
  }
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

export function toolOutput(result: CallToolResult): ToolOutput {
  const content = Array.isArray(result.content) ? result.content : [];
  const parts = content.map(blockText);
  const structured = result.structuredContent;
  if (structured !== undefined && !content.some((block) => block.type === 'text' && sameJson(block.text, structured))) {
    parts.push(`Structured content:\n${JSON.stringify(structured, null, 2)}`);
  }
  const text = parts.join('\n').trim();
  return {
    content: text || (result.isError ? 'The tool reported an error without details.' : '(the tool returned nothing)'),
    isError: result.isError === true,
  };
}
