// `@provider/model` mentions in a message: each names a model to answer beside the chat's own
// (side by side). A mention matches a provider by its name (any case, spaces as `-`) or id; one
// that matches none is left in the text as it was written.
import type { CompareModel, ProviderView } from '../bindings';

const MENTION = /(^|\s)@([^\s/@]+)\/(\S+)/g;

/** The models `text` mentions (in order, each once) and the text without those mentions. */
export function mentionedModels(text: string, views: ProviderView[]): { models: CompareModel[]; text: string } {
  const slug = (name: string) => name.trim().toLowerCase().replace(/\s+/g, '-');
  const models: CompareModel[] = [];
  const rest = text.replace(MENTION, (whole, space: string, who: string, model: string) => {
    const wanted = slug(who);
    const view = views.find((v) => v.provider.id.toLowerCase() === wanted || slug(v.provider.name) === wanted);
    if (!view) return whole;
    if (!models.some((m) => m.providerId === view.provider.id && m.model === model)) models.push({ providerId: view.provider.id, model });
    return space;
  });
  return { models, text: models.length > 0 ? rest.replace(/\s{2,}/g, ' ').trim() : text };
}
