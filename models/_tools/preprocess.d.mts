export interface ImageLike { width: number; height: number; channels: number; data: ArrayLike<number> }
export interface PreprocessorConfig {
  do_resize?: boolean;
  size: { height: number; width: number };
  resize_mode?: 'stretch' | 'fit_height_pad_right';
  resample?: number;
  do_convert_rgb?: boolean;
  do_convert_grayscale?: boolean;
  do_rescale?: boolean;
  rescale_factor: number;
  do_normalize?: boolean;
  image_mean: number[];
  image_std: number[];
  do_pad?: boolean;
  pad_size?: { height: number; width: number };
}
export interface FloatImage { width: number; height: number; channels: number; data: Float32Array }
export function convertColor(img: ImageLike, cfg: PreprocessorConfig): FloatImage;
export function resizeBilinear(img: FloatImage, tw: number, th: number): FloatImage;
export function targetSize(width: number, height: number, cfg: PreprocessorConfig): { width: number; height: number };
export function preprocessImage(img: ImageLike, cfg: PreprocessorConfig): { data: Float32Array; dims: [number, number, number] };
