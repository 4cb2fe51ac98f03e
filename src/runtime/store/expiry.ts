const DAY_MS = 86_400_000;

/**
 * Whether signed metadata valid from `createdAt` until `expiresAt` expires soon enough: an expiry
 * centuries away is no expiry at all, and lets a mirror offer the document forever. Shared by the
 * device's checks (manifests, catalogs) and model:pack, which refuses what devices would refuse.
 */
export const validForAtMost = (createdAt: string, expiresAt: string, days: number): boolean => Date.parse(expiresAt) - Date.parse(createdAt) <= days * DAY_MS;
