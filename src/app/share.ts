/**
 * Hands something to another app or device through the Web Share sheet where the browser has
 * one (phones, some desktops), with a fallback that always works. A user closing the share sheet
 * is not a failure to fall back from.
 */
const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

/** A result's text: shared, else copied to the clipboard. Says which, so the button can confirm it. */
export async function shareText(title: string, text: string, nav: Navigator = navigator): Promise<'shared' | 'copied'> {
  const data = { title, text };
  if (typeof nav.share === 'function' && (nav.canShare?.(data) ?? true)) {
    try {
      await nav.share(data);
      return 'shared';
    } catch (error) {
      if (isAbort(error)) throw error;
    }
  }
  await nav.clipboard.writeText(text);
  return 'copied';
}

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
