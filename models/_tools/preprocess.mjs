// Reference implementation (plain JS, browser- and Node-safe) of the image preprocessing that
// a Lantern preprocessor_config.json describes. The model evals (recipe/eval.mjs) use exactly
// this code; an app that wants the same numbers must do the same arithmetic.
//
// Input image: {width, height, channels: 1|2|3|4, data: Uint8Array (row-major, interleaved)},
// e.g. canvas ImageData (channels 4) or a decoded PNG. Alpha is ignored (dropped, not composited).
// Steps, in this order:
//  1. colour: do_convert_grayscale -> 1 channel, gray = 0.299 R + 0.587 G + 0.114 B rounded
//     to the nearest integer (a 1-channel input is used as is); otherwise do_convert_rgb ->
//     3 channels (gray inputs replicated to R=G=B).
//  2. resize (do_resize, resample 2 = bilinear) to a target (tw, th):
//       resize_mode absent / "stretch":  tw = size.width, th = size.height
//       resize_mode "fit_height_pad_right": th = size.height,
//                                 tw = min(size.width, ceil(size.height * width / height))
//     Bilinear with half-pixel centres and edge clamping, no antialiasing, in float (no
//     rounding back to 8 bits) -- the convention of OpenCV's INTER_LINEAR (PaddleOCR's
//     cv2.resize) and of PyTorch interpolate(align_corners=False, antialias=False):
//       sx = (dx + 0.5) * width / tw - 0.5, clamped to [0, width - 1]; x0 = floor(sx),
//       x1 = min(x0 + 1, width - 1), fx = sx - x0; same for y; separable lerp.
//     Same size in and out is the identity.
//  3. do_rescale: v * rescale_factor;  4. do_normalize: (v - image_mean[c]) / image_std[c].
//  5. do_pad (with pad_size): place the result at the top-left of a pad_size tensor filled
//     with 0 (i.e. 0 after normalisation). A result larger than pad_size is an error, as in
//     the runtime (transformers.js would clip it).
// Output: Float32Array in CHW order (one image of a NCHW batch), plus its dims.

/** Converts to 1 (grayscale) or 3 (RGB) channels of uint8-range values (Float32Array). */
export function convertColor(img, cfg) {
  const { width, height, channels, data } = img;
  const n = width * height;
  if (cfg.do_convert_grayscale) {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      if (channels <= 2) out[i] = data[i * channels];
      else out[i] = Math.round(0.299 * data[i * channels] + 0.587 * data[i * channels + 1] + 0.114 * data[i * channels + 2]);
    }
    return { width, height, channels: 1, data: out };
  }
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) out[i * 3 + c] = channels <= 2 ? data[i * channels] : data[i * channels + c];
  }
  return { width, height, channels: 3, data: out };
}

/** Bilinear resize (half-pixel centres, clamp, no antialias) of an interleaved float image. */
export function resizeBilinear(img, tw, th) {
  const { width: w, height: h, channels: c, data } = img;
  if (tw === w && th === h) return { width: w, height: h, channels: c, data: Float32Array.from(data) };
  const out = new Float32Array(tw * th * c);
  const xs = new Int32Array(tw * 2);
  const fxs = new Float32Array(tw);
  for (let dx = 0; dx < tw; dx++) {
    const sx = Math.min(Math.max((dx + 0.5) * (w / tw) - 0.5, 0), w - 1);
    const x0 = Math.floor(sx);
    xs[2 * dx] = x0;
    xs[2 * dx + 1] = Math.min(x0 + 1, w - 1);
    fxs[dx] = sx - x0;
  }
  for (let dy = 0; dy < th; dy++) {
    const sy = Math.min(Math.max((dy + 0.5) * (h / th) - 0.5, 0), h - 1);
    const y0 = Math.floor(sy);
    const y1 = Math.min(y0 + 1, h - 1);
    const fy = sy - y0;
    for (let dx = 0; dx < tw; dx++) {
      const x0 = xs[2 * dx], x1 = xs[2 * dx + 1], fx = fxs[dx];
      for (let k = 0; k < c; k++) {
        const p00 = data[(y0 * w + x0) * c + k], p01 = data[(y0 * w + x1) * c + k];
        const p10 = data[(y1 * w + x0) * c + k], p11 = data[(y1 * w + x1) * c + k];
        const top = p00 + (p01 - p00) * fx;
        const bottom = p10 + (p11 - p10) * fx;
        out[(dy * tw + dx) * c + k] = top + (bottom - top) * fy;
      }
    }
  }
  return { width: tw, height: th, channels: c, data: out };
}

/** Target size of step 2 for an input of width x height. */
export function targetSize(width, height, cfg) {
  const { height: sh, width: sw } = cfg.size;
  if (cfg.resize_mode === 'fit_height_pad_right') {
    return { width: Math.max(1, Math.min(sw, Math.ceil((sh * width) / height))), height: sh };
  }
  return { width: sw, height: sh };
}

/**
 * Full pipeline for one image.
 * @returns {{data: Float32Array, dims: [number, number, number]}} CHW
 */
export function preprocessImage(img, cfg) {
  let x = convertColor(img, cfg);
  if (cfg.do_resize) {
    const t = targetSize(x.width, x.height, cfg);
    x = resizeBilinear(x, t.width, t.height);
  }
  const c = x.channels;
  const scale = cfg.do_rescale ? cfg.rescale_factor : 1;
  const mean = cfg.do_normalize ? cfg.image_mean : new Array(c).fill(0);
  const std = cfg.do_normalize ? cfg.image_std : new Array(c).fill(1);
  const H = cfg.do_pad && cfg.pad_size ? cfg.pad_size.height : x.height;
  const W = cfg.do_pad && cfg.pad_size ? cfg.pad_size.width : x.width;
  if (x.width > W || x.height > H) throw new RangeError(`The prepared image is ${x.width}x${x.height}, larger than pad_size (${W}x${H}): it would be clipped.`);
  const out = new Float32Array(c * H * W); // padding value 0
  for (let k = 0; k < c; k++) {
    const m = mean[k] ?? mean[0], s = std[k] ?? std[0];
    for (let y = 0; y < x.height; y++) {
      for (let xx = 0; xx < x.width; xx++) {
        out[(k * H + y) * W + xx] = (x.data[(y * x.width + xx) * c + k] * scale - m) / s;
      }
    }
  }
  return { data: out, dims: [c, H, W] };
}
