/**
 * Hands a file to another device: the Web Share API where the browser can share files (Android,
 * iOS, some desktops — Bluetooth, Nearby Share, messaging apps), otherwise a download the user
 * can copy over by any means. A user who cancels the share sheet is not sent a download instead.
 */
export async function shareFile(file: File): Promise<'shared' | 'cancelled' | 'downloaded'> {
  if (navigator.canShare?.({ files: [file] })) {
    try {
      await navigator.share({ files: [file], title: file.name });
      return 'shared';
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') return 'cancelled';
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
