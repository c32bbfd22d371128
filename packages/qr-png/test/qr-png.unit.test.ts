import fc from 'fast-check';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { qrPng, qrPngDataUri } from '../src';

function decode(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

describe('qrPng', () => {
  test('a PIX BR Code rendered as a PNG decodes back to exactly the same text', () => {
    const brCode =
      '00020101021226810014br.gov.bcb.pix2559127.0.0.1:4010/v2/loc/981a25d1-07a6-4de4-8f3a-3ffe2a5bf3555204000053039865802BR5913PSP SIMULADOR6009SAO PAULO62070503***6304E828';
    expect(decode(qrPng(brCode))).toBe(brCode);
  });

  test('any payment link decodes back to itself (property)', () => {
    fc.assert(
      fc.property(fc.webUrl(), (url) => {
        expect(decode(qrPng(url))).toBe(url);
      }),
      { numRuns: 40 },
    );
  });

  test('the image has the quiet zone and scale asked for', () => {
    const image = PNG.sync.read(qrPng('solana:abc', { scale: 3, margin: 4 }));
    expect(image.width).toBe(image.height);
    expect((image.width / 3 - 8 - 21) % 4).toBe(0);
    expect(Array.from(image.data.subarray(0, 4))).toEqual([255, 255, 255, 255]);
  });

  test('the data URI is a base64 PNG', () => {
    expect(qrPngDataUri('x')).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });
});
