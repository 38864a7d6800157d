import { describe, expect, it } from 'vitest';
import { mediaContent } from '../../src/mcp/media-content.js';

describe('mediaContent', () => {
  it('turns base64 data URLs into image, audio, or an embedded blob by MIME type', () => {
    expect(mediaContent('data:image/PNG;base64,iVBORw0KGgo=', 0)).toEqual({
      type: 'image',
      data: 'iVBORw0KGgo=',
      mimeType: 'image/png',
    });
    expect(mediaContent('data:audio/ogg;codecs=opus;base64,T2dnUw==', 1)).toEqual({
      type: 'audio',
      data: 'T2dnUw==',
      mimeType: 'audio/ogg',
    });
    expect(mediaContent('data:application/pdf;base64,JVBERg==', 2)).toEqual({
      type: 'resource',
      resource: { uri: 'media:2', mimeType: 'application/pdf', blob: 'JVBERg==' },
    });
  });

  it('links anything else, including data URLs that are not valid base64 (a client would reject those)', () => {
    expect(mediaContent('media://store/abc', 0)).toEqual({
      type: 'resource_link',
      uri: 'media://store/abc',
      name: 'abc',
    });
    expect(mediaContent('https://example.com/a/chart.png?x=1', 0)).toMatchObject({ name: 'chart.png' });
    expect(mediaContent('media://', 3)).toMatchObject({ type: 'resource_link', name: 'media-3' });
    expect(mediaContent('data:image/png;base64,abc', 4)).toMatchObject({
      type: 'resource_link',
      name: 'media-4',
    });
    expect(mediaContent('data:image/png,rawbytes', 5)).toMatchObject({ type: 'resource_link' });
  });
});
