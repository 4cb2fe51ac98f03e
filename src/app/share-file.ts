import { isAbort } from './share.ts';

/**
 * A file for another device (Bluetooth, Nearby Share, messaging apps), else a download the user
 * can copy over by any means.
 */
export async function shareFile(file: File): Promise<'shared' | 'cancelled' | 'downloaded'> {
  if (navigator.canShare?.({ files: [file] })) {
    try {
      await navigator.share({ files: [file], title: file.name });
      return 'shared';
    } catch (error) {
      if (isAbort(error)) return 'cancelled';
      // Refused (no user gesture left, policy): fall back to a download.
    }
  }
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser resolves the URL asynchronously; a minute is ample, then the memory is freed.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return 'downloaded';
}
