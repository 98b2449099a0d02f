/**
 * Field-name matching for extraction schemas. Names compare case-, underscore-
 * and camel-insensitively (`in_stock`, `inStock`, `In-Stock` are one name),
 * singular and plural forms match, and each alias group below makes its names
 * interchangeable; `paths` are where the concept sits inside schema.org data.
 */
export interface AliasGroup {
  names: string[];
  paths: string[];
}

const TAG_PREFIX = /^(og|twitter|article|product|book|profile|music|video|dc|dcterms):/i;

export function normalizeFieldName(name: string): string {
  return name.replace(TAG_PREFIX, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

const g = (names: string[], paths: string[] = []): AliasGroup => ({ names: names.map(normalizeFieldName), paths });

export const ALIAS_GROUPS: readonly AliasGroup[] = [
  g(['name', 'title', 'headline', 'product_name', 'product_title', 'item_name', 'item_title', 'heading'], ['name', 'headline', 'title']),
  g(['price', 'cost', 'amount', 'current_price', 'sale_price', 'price_amount', 'offer_price', 'low_price'], [
    'offers.price', 'offers.lowPrice', 'offers.priceSpecification.price', 'offers.highPrice', 'price:amount',
  ]),
  g(['currency', 'price_currency', 'currency_code'], ['offers.priceCurrency', 'offers.priceSpecification.priceCurrency', 'price:currency']),
  g(['availability', 'in_stock', 'stock', 'stock_status', 'available', 'is_available', 'availability_status', 'is_in_stock'], [
    'offers.availability', 'availability',
  ]),
  g(['sku', 'asin', 'product_id', 'item_id', 'mpn', 'gtin', 'gtin13', 'gtin12', 'gtin14', 'gtin8', 'ean', 'upc', 'isbn', 'part_number', 'model_number'], [
    'sku', 'productID', 'mpn', 'gtin13', 'gtin12', 'gtin14', 'gtin8', 'gtin', 'isbn',
  ]),
  g(['images', 'image', 'image_urls', 'image_url', 'photos', 'photo', 'pictures', 'picture', 'thumbnail', 'thumbnail_url', 'img'], [
    'image', 'thumbnailUrl', 'image:url', 'image:src',
  ]),
  g(['description', 'summary', 'abstract', 'desc', 'excerpt', 'teaser'], ['description', 'abstract']),
  g(['content', 'article_body', 'body', 'text', 'full_text', 'main_content', 'body_text'], ['articleBody', 'text']),
  g(['author', 'authors', 'creator', 'writer', 'byline', 'by', 'author_name'], ['author', 'creator']),
  g(
    ['published_date', 'date_published', 'published', 'publish_date', 'published_at', 'publication_date', 'pub_date', 'date',
      'created_at', 'date_created', 'upload_date', 'release_date', 'published_time', 'posted_at', 'date_posted', 'posted_date'],
    ['datePublished', 'dateCreated', 'uploadDate', 'datePosted', 'published_time', 'releaseDate'],
  ),
  g(['updated_at', 'date_modified', 'modified', 'last_updated', 'updated', 'modified_time', 'last_modified', 'modified_at'], [
    'dateModified', 'modified_time', 'updated_time',
  ]),
  g(['brand', 'manufacturer', 'maker', 'vendor', 'brand_name'], ['brand', 'manufacturer']),
  g(['rating', 'rating_value', 'average_rating', 'avg_rating', 'stars', 'star_rating', 'score', 'review_score', 'aggregate_rating'], [
    'aggregateRating.ratingValue', 'aggregateRating',
  ]),
  g(['review_count', 'reviews_count', 'num_reviews', 'number_of_reviews', 'rating_count', 'ratings_count', 'total_reviews'], [
    'aggregateRating.reviewCount', 'aggregateRating.ratingCount', 'rating.count',
  ]),
  g(['url', 'link', 'href', 'canonical', 'canonical_url', 'page_url', 'permalink', 'source_url', 'product_url'], ['url', 'canonical', 'mainEntityOfPage']),
  g(['company', 'company_name', 'employer', 'hiring_organization', 'organization', 'organisation'], ['hiringOrganization']),
  g(['location', 'job_location', 'address', 'place', 'venue', 'where'], ['jobLocation', 'location', 'address']),
  g(['city', 'locality', 'town'], ['address.addressLocality', 'location.address.addressLocality', 'jobLocation.address.addressLocality']),
  g(['country'], ['address.addressCountry', 'location.address.addressCountry', 'jobLocation.address.addressCountry']),
  g(['salary', 'base_salary', 'compensation', 'pay', 'wage', 'estimated_salary'], ['baseSalary', 'estimatedSalary']),
  g(['requirements', 'qualifications', 'skills', 'experience_requirements', 'education_requirements'], [
    'qualifications', 'skills', 'experienceRequirements', 'educationRequirements',
  ]),
  g(['salary_min', 'min_salary', 'minimum_salary'], ['baseSalary.value.minValue', 'baseSalary.minValue', 'salary.min']),
  g(['salary_max', 'max_salary', 'maximum_salary'], ['baseSalary.value.maxValue', 'baseSalary.maxValue', 'salary.max']),
  g(['salary_currency'], ['baseSalary.currency', 'salary.currency']),
  g(['employment_type', 'job_type', 'contract_type'], ['employmentType']),
  g(['valid_through', 'expires', 'expiry_date', 'deadline', 'closing_date', 'application_deadline'], ['validThrough']),
  g(['start_date', 'starts_at', 'start_time', 'event_date', 'date', 'when', 'begins'], ['startDate', 'doorTime']),
  g(['end_date', 'ends_at', 'end_time'], ['endDate']),
  g(['organizer', 'organiser', 'host', 'presented_by', 'organizer_name'], ['organizer']),
  g(['performer', 'performers', 'artist', 'artists', 'band', 'lineup'], ['performer']),
  g(['ingredients', 'recipe_ingredients', 'ingredient_list'], ['recipeIngredient', 'ingredients']),
  g(['instructions', 'recipe_instructions', 'steps', 'directions', 'method', 'preparation'], ['recipeInstructions']),
  g(['cook_time', 'cooking_time', 'total_time', 'duration'], ['cookTime', 'totalTime', 'duration']),
  g(['prep_time', 'preparation_time'], ['prepTime']),
  g(['servings', 'recipe_yield', 'yield', 'serves', 'portions', 'serving_size'], ['recipeYield', 'yield']),
  g(['nutrition', 'nutrition_info', 'nutrition_facts', 'nutritional_information'], ['nutrition']),
  g(['calories', 'kcal', 'energy'], ['nutrition.calories']),
  g(['questions', 'faq', 'faqs', 'qa', 'question_answers', 'main_entity'], ['mainEntity']),
  g(['question', 'q', 'query'], ['name', 'text']),
  g(['answer', 'a', 'response', 'reply', 'accepted_answer'], ['acceptedAnswer.text', 'acceptedAnswer', 'suggestedAnswer.text']),
  g(['language', 'lang', 'locale', 'in_language'], ['inLanguage', 'language', 'locale']),
  g(['keywords', 'tags', 'topics'], ['keywords', 'tag']),
  g(['category', 'categories', 'section', 'article_section', 'genre', 'recipe_category'], ['articleSection', 'category', 'recipeCategory', 'genre', 'section']),
  g(['publisher', 'site_name', 'site', 'publication', 'source'], ['publisher', 'site_name']),
  g(['condition', 'item_condition'], ['offers.itemCondition', 'itemCondition']),
  g(['seller', 'merchant', 'sold_by', 'retailer'], ['offers.seller']),
  g(['phone', 'telephone', 'phone_number', 'tel'], ['telephone']),
  g(['email', 'e_mail', 'email_address'], ['email']),
  g(['reviews', 'review', 'customer_reviews', 'user_reviews'], ['review']),
  g(['offers', 'offer', 'deals', 'pricing'], ['offers']),
  g(['video', 'video_url', 'videos'], ['video']),
  g(['word_count', 'words'], ['wordCount']),
];

function variants(normalized: string): string[] {
  const out = [normalized];
  if (normalized.endsWith('ies')) out.push(`${normalized.slice(0, -3)}y`);
  else if (normalized.endsWith('s')) out.push(normalized.slice(0, -1));
  else out.push(`${normalized}s`);
  return out;
}

export interface FieldNames {
  /** The requested name and its singular/plural form. */
  own: string[];
  /** Names from its alias groups, in group order. */
  aliases: string[];
  /** schema.org property paths for the concept. */
  paths: string[];
}

export function fieldNames(requested: string): FieldNames {
  const own = variants(normalizeFieldName(requested));
  const aliases: string[] = [];
  const paths: string[] = [];
  for (const group of ALIAS_GROUPS) {
    if (!own.some((n) => group.names.includes(n))) continue;
    for (const name of group.names) if (!own.includes(name) && !aliases.includes(name)) aliases.push(name);
    for (const path of group.paths) if (!paths.includes(path)) paths.push(path);
  }
  return { own, aliases, paths };
}

/** Entity types a plural collection name stands for: `products` → Product, `faqs` → Question. */
const COLLECTION_TYPES: Record<string, (type: string) => boolean> = {
  question: (t) => t === 'Question',
  faq: (t) => t === 'Question',
  qa: (t) => t === 'Question',
  article: (t) => t.endsWith('Article') || t === 'BlogPosting',
  post: (t) => t.endsWith('Posting') || t.endsWith('Article'),
  story: (t) => t.endsWith('Article'),
  event: (t) => t.endsWith('Event') || t === 'Festival',
  job: (t) => t === 'JobPosting',
  jobposting: (t) => t === 'JobPosting',
  person: (t) => t === 'Person',
  people: (t) => t === 'Person',
  item: (t) => t === 'Product',
  product: (t) => t === 'Product' || t === 'ProductGroup' || t === 'IndividualProduct',
  breadcrumb: (t) => t === 'ListItem',
};

/** Whether an entity type is what a field name refers to: `product` ↔ Product, `recipes` ↔ Recipe. */
export function nameMatchesType(requested: string, type: string): boolean {
  const names = variants(normalizeFieldName(requested));
  const typeName = normalizeFieldName(type);
  return names.some((n) => n === typeName || (COLLECTION_TYPES[n]?.(type) ?? false));
}
