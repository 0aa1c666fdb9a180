/**
 * The store's parameters, resolved once at `make`: upstream's defaults overlaid with what the caller
 * passed. Only the parameters this store uses are kept, under names that say their units.
 */
import { DEFAULT_CONTENT_SETTINGS, type ContentSettings } from "../../subjects/content/api.ts"

/** Every parameter of the store, with no optional field left. */
export type ResolvedSettings = ContentSettings

/** Overlays the caller's settings on upstream's defaults (L 1 h, G 24 h, S 60 s, T 30 s, ...). */
export const resolveSettings = (given: Partial<ContentSettings> & { readonly grantKey: string }): ResolvedSettings => ({
  ...DEFAULT_CONTENT_SETTINGS,
  ...given
})
