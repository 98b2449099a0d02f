import { articleProfile } from './article-profile.js';
import { eventProfile } from './event-profile.js';
import { faqProfile } from './faq-profile.js';
import { jobPostingProfile } from './job-posting-profile.js';
import type { ProfileDefinition, ProfileName } from './profile-model.js';
import { productProfile } from './product-profile.js';
import { recipeProfile } from './recipe-profile.js';

export const PROFILES: Readonly<Record<ProfileName, ProfileDefinition>> = {
  product: productProfile,
  article: articleProfile,
  job_posting: jobPostingProfile,
  faq: faqProfile,
  recipe: recipeProfile,
  event: eventProfile,
};
