import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';

export interface QrPngOptions {
  /** Pixels per QR module. */
  scale?: number;
  /** Quiet zone, in modules (the QR spec asks for 4; 2 is what most payment QR codes use). */
  margin?: number;
  errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H';
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/**
 * The QR code of `text` as a 1-bit grayscale PNG. The matrix comes from `qrcode`; only the image encoding is ours:
 * `qrcode.toDataURL` renders RGBA through pngjs with adaptive filtering, which costs ~10x the matrix itself and is
 * the payment hot path's biggest cost, while a black-and-white code needs one bit per pixel and no filtering.
 */
export function qrPng(text: string, options: QrPngOptions = {}): Buffer {
  const scale = options.scale ?? 6;
  const margin = options.margin ?? 2;
  const { modules } = QRCode.create(text, { errorCorrectionLevel: options.errorCorrectionLevel ?? 'M' });
  const size = modules.size;
  const pixels = (size + 2 * margin) * scale;
  const rowBytes = Math.ceil(pixels / 8);
  // Each scanline: filter type 0, then the packed bits (1 = white, 0 = black). The `scale` scanlines of one module
  // row are the same bytes: each is drawn once and copied, so the cost goes with the modules, not with the pixels.
  const lineBytes = rowBytes + 1;
  const raw = Buffer.alloc(lineBytes * pixels, 0xff);
  for (let y = 0; y < pixels; y += 1) raw[y * lineBytes] = 0;
  for (let moduleY = 0; moduleY < size; moduleY += 1) {
    const firstLine = (moduleY + margin) * scale;
    const rowStart = firstLine * lineBytes;
    for (let moduleX = 0; moduleX < size; moduleX += 1) {
      if (!modules.get(moduleY, moduleX)) continue;
      const left = (moduleX + margin) * scale;
      for (let x = left; x < left + scale; x += 1) {
        const byteIndex = rowStart + 1 + (x >> 3);
        raw[byteIndex] = raw[byteIndex]! & ~(0x80 >> (x & 7));
      }
    }
    for (let line = 1; line < scale; line += 1)
      raw.copy(raw, rowStart + line * lineBytes, rowStart, rowStart + lineBytes);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(pixels, 0);
  header.writeUInt32BE(pixels, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `data:image/png;base64,...` of the QR code of `text`, as the contract's `qr_code` fields carry it. */
export function qrPngDataUri(text: string, options?: QrPngOptions): string {
  return `data:image/png;base64,${qrPng(text, options).toString('base64')}`;
}
