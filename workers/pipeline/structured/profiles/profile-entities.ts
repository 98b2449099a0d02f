import { textValue } from '../json-like-values.js';
import type { Entity } from '../structured-data-model.js';

/**
 * Entities of a profile's types that describe the page's main thing: the
 * first top-level one (or first nested one when none is top-level), plus
 * others naming the same thing (same @id or name, or unnamed) so a page
 * marked up twice (JSON-LD and microdata) merges while a "related products"
 * list does not leak into the main product.
 */
export function profileEntities(all: Entity[], matchesType: (type: string) => boolean): Entity[] {
  const matching = all.filter((e) => e.types.some(matchesType));
  if (matching.length === 0) return [];
  const ordered = [...matching.filter((e) => e.topLevel), ...matching.filter((e) => !e.topLevel)];
  const primary = ordered[0]!;
  const primaryId = typeof primary.value['@id'] === 'string' ? primary.value['@id'] : null;
  const primaryName = textValue(primary.value.name ?? primary.value.headline)?.toLowerCase() ?? null;
  return ordered.filter((e) => {
    if (e === primary) return true;
    const id = typeof e.value['@id'] === 'string' ? e.value['@id'] : null;
    if (primaryId && id === primaryId) return true;
    const name = textValue(e.value.name ?? e.value.headline)?.toLowerCase() ?? null;
    return name === null || primaryName === null || name === primaryName;
  });
}
