// The site's icon: a white «C» on the dashboard's blue, as SVG (/favicon.svg, named by the pages' <link
// rel="icon">) and as a 32×32 ICO at /favicon.ico, the address browsers and crawlers ask for on their own.
// The ICO holds a PNG (allowed since Windows Vista, read by every browser) drawn here from the same shape,
// so there is no binary file to keep in step with the SVG.
import { deflateSync } from 'node:zlib';

const BLUE = [0x1d, 0x4e, 0xd8] as const;
const SIZE = 32;
/** The ring of the «C»: its centre line's radius and half its width, and the opening's half-angle (radians). */
const RING = { radius: 9.5, halfWidth: 2.75, opening: Math.PI / 4 };

const END_X = (16 + RING.radius * Math.cos(RING.opening)).toFixed(2);
const END_DY = RING.radius * Math.sin(RING.opening);

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#1d4ed8"/>
<path d="M${END_X} ${(16 - END_DY).toFixed(2)}A${RING.radius} ${RING.radius} 0 1 0 ${END_X} ${(16 + END_DY).toFixed(2)}" fill="none" stroke="#fff" stroke-width="${2 * RING.halfWidth}" stroke-linecap="round"/>
</svg>
`;

/** How much of the point (x, y) the shape covers with white (1), the blue square (0), or nothing (-1). */
function shade(x: number, y: number): number {
  // The rounded square (corner radius 7).
  const r = 7;
  const cx = Math.min(Math.max(x, r), SIZE - r);
  const cy = Math.min(Math.max(y, r), SIZE - r);
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return -1;
  const dx = x - 16;
  const dy = y - 16;
  const angle = Math.abs(Math.atan2(dy, dx));
  if (angle >= RING.opening) return Math.abs(Math.hypot(dx, dy) - RING.radius) <= RING.halfWidth ? 1 : 0;
  // The round caps at the opening's two ends.
  const capX = 16 + RING.radius * Math.cos(RING.opening);
  const capY = 16 + Math.sign(dy || 1) * RING.radius * Math.sin(RING.opening);
  return Math.hypot(x - capX, y - capY) <= RING.halfWidth ? 1 : 0;
}

/** The icon's RGBA pixels, each the mean of 4×4 samples (smooth edges). */
function pixels(): Buffer {
  const rgba = Buffer.alloc(SIZE * SIZE * 4);
  const n = 4;
  for (let py = 0; py < SIZE; py++) {
    for (let px = 0; px < SIZE; px++) {
      let inside = 0;
      let white = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const s = shade(px + (sx + 0.5) / n, py + (sy + 0.5) / n);
          if (s >= 0) inside += 1;
          if (s === 1) white += 1;
        }
      }
      const at = (py * SIZE + px) * 4;
      const w = inside === 0 ? 0 : white / inside;
      for (let c = 0; c < 3; c++) rgba[at + c] = Math.round(BLUE[c]! + (255 - BLUE[c]!) * w);
      rgba[at + 3] = Math.round((255 * inside) / (n * n));
    }
  }
  return rgba;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** The 32×32 icon as a PNG file. */
export function faviconPng(): Buffer {
  const rgba = pixels();
  // Each scanline starts with its filter type (0: none).
  const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let y = 0; y < SIZE; y++) rgba.copy(raw, y * (SIZE * 4 + 1) + 1, y * SIZE * 4, (y + 1) * SIZE * 4);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits a channel, RGBA, deflate, no filter choice, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

let ico: Buffer | null = null;

/** The ICO file: one 32×32 image, a PNG. Made on the first request and kept. */
export function faviconIco(): Buffer {
  if (ico) return ico;
  const png = faviconPng();
  const dir = Buffer.alloc(6 + 16);
  dir.writeUInt16LE(0, 0); // reserved
  dir.writeUInt16LE(1, 2); // an icon
  dir.writeUInt16LE(1, 4); // one image
  dir.writeUInt8(SIZE, 6);
  dir.writeUInt8(SIZE, 7);
  dir.writeUInt8(0, 8); // no palette
  dir.writeUInt8(0, 9);
  dir.writeUInt16LE(1, 10); // colour planes
  dir.writeUInt16LE(32, 12); // bits per pixel
  dir.writeUInt32LE(png.length, 14);
  dir.writeUInt32LE(dir.length, 18);
  ico = Buffer.concat([dir, png]);
  return ico;
}
