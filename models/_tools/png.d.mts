export interface RawImage { width: number; height: number; channels: number; data: Uint8Array }
export function decodePng(bytes: Uint8Array): RawImage;
export function crop(img: RawImage, rect: { x: number; y: number; w: number; h: number }): RawImage;
export function rotate180(img: RawImage): RawImage;
