/**
 * What `location` (SPEC 2.2) sets for a country: the language the target is
 * asked for (Accept-Language, and the browser's locale), the browser's time
 * zone, and its geolocation (the country's capital, or largest city). One
 * entry per supported ISO 3166-1 alpha-2 code; a country not listed is
 * refused with 400, so what a caller asks for is always what happens.
 */
export interface CountryProfile {
  locale: string;
  timezone: string;
  latitude: number;
  longitude: number;
}

/** The locale every tier presents when the request names no location. */
export const DEFAULT_LOCALE = 'en-US';

export const COUNTRY_PROFILES: Readonly<Record<string, CountryProfile>> = {
  AE: { locale: 'ar-AE', timezone: 'Asia/Dubai', latitude: 24.4539, longitude: 54.3773 },
  AR: { locale: 'es-AR', timezone: 'America/Argentina/Buenos_Aires', latitude: -34.6037, longitude: -58.3816 },
  AT: { locale: 'de-AT', timezone: 'Europe/Vienna', latitude: 48.2082, longitude: 16.3738 },
  AU: { locale: 'en-AU', timezone: 'Australia/Sydney', latitude: -33.8688, longitude: 151.2093 },
  BE: { locale: 'nl-BE', timezone: 'Europe/Brussels', latitude: 50.8503, longitude: 4.3517 },
  BR: { locale: 'pt-BR', timezone: 'America/Sao_Paulo', latitude: -23.5505, longitude: -46.6333 },
  CA: { locale: 'en-CA', timezone: 'America/Toronto', latitude: 43.6532, longitude: -79.3832 },
  CH: { locale: 'de-CH', timezone: 'Europe/Zurich', latitude: 47.3769, longitude: 8.5417 },
  CL: { locale: 'es-CL', timezone: 'America/Santiago', latitude: -33.4489, longitude: -70.6693 },
  CN: { locale: 'zh-CN', timezone: 'Asia/Shanghai', latitude: 39.9042, longitude: 116.4074 },
  CO: { locale: 'es-CO', timezone: 'America/Bogota', latitude: 4.711, longitude: -74.0721 },
  CZ: { locale: 'cs-CZ', timezone: 'Europe/Prague', latitude: 50.0755, longitude: 14.4378 },
  DE: { locale: 'de-DE', timezone: 'Europe/Berlin', latitude: 52.52, longitude: 13.405 },
  DK: { locale: 'da-DK', timezone: 'Europe/Copenhagen', latitude: 55.6761, longitude: 12.5683 },
  EG: { locale: 'ar-EG', timezone: 'Africa/Cairo', latitude: 30.0444, longitude: 31.2357 },
  ES: { locale: 'es-ES', timezone: 'Europe/Madrid', latitude: 40.4168, longitude: -3.7038 },
  FI: { locale: 'fi-FI', timezone: 'Europe/Helsinki', latitude: 60.1699, longitude: 24.9384 },
  FR: { locale: 'fr-FR', timezone: 'Europe/Paris', latitude: 48.8566, longitude: 2.3522 },
  GB: { locale: 'en-GB', timezone: 'Europe/London', latitude: 51.5074, longitude: -0.1278 },
  GR: { locale: 'el-GR', timezone: 'Europe/Athens', latitude: 37.9838, longitude: 23.7275 },
  HK: { locale: 'zh-HK', timezone: 'Asia/Hong_Kong', latitude: 22.3193, longitude: 114.1694 },
  HU: { locale: 'hu-HU', timezone: 'Europe/Budapest', latitude: 47.4979, longitude: 19.0402 },
  ID: { locale: 'id-ID', timezone: 'Asia/Jakarta', latitude: -6.2088, longitude: 106.8456 },
  IE: { locale: 'en-IE', timezone: 'Europe/Dublin', latitude: 53.3498, longitude: -6.2603 },
  IL: { locale: 'he-IL', timezone: 'Asia/Jerusalem', latitude: 32.0853, longitude: 34.7818 },
  IN: { locale: 'en-IN', timezone: 'Asia/Kolkata', latitude: 28.6139, longitude: 77.209 },
  IT: { locale: 'it-IT', timezone: 'Europe/Rome', latitude: 41.9028, longitude: 12.4964 },
  JP: { locale: 'ja-JP', timezone: 'Asia/Tokyo', latitude: 35.6762, longitude: 139.6503 },
  KR: { locale: 'ko-KR', timezone: 'Asia/Seoul', latitude: 37.5665, longitude: 126.978 },
  MX: { locale: 'es-MX', timezone: 'America/Mexico_City', latitude: 19.4326, longitude: -99.1332 },
  MY: { locale: 'ms-MY', timezone: 'Asia/Kuala_Lumpur', latitude: 3.139, longitude: 101.6869 },
  NG: { locale: 'en-NG', timezone: 'Africa/Lagos', latitude: 6.5244, longitude: 3.3792 },
  NL: { locale: 'nl-NL', timezone: 'Europe/Amsterdam', latitude: 52.3676, longitude: 4.9041 },
  NO: { locale: 'nb-NO', timezone: 'Europe/Oslo', latitude: 59.9139, longitude: 10.7522 },
  NZ: { locale: 'en-NZ', timezone: 'Pacific/Auckland', latitude: -36.8485, longitude: 174.7633 },
  PH: { locale: 'en-PH', timezone: 'Asia/Manila', latitude: 14.5995, longitude: 120.9842 },
  PL: { locale: 'pl-PL', timezone: 'Europe/Warsaw', latitude: 52.2297, longitude: 21.0122 },
  PT: { locale: 'pt-PT', timezone: 'Europe/Lisbon', latitude: 38.7223, longitude: -9.1393 },
  RO: { locale: 'ro-RO', timezone: 'Europe/Bucharest', latitude: 44.4268, longitude: 26.1025 },
  SA: { locale: 'ar-SA', timezone: 'Asia/Riyadh', latitude: 24.7136, longitude: 46.6753 },
  SE: { locale: 'sv-SE', timezone: 'Europe/Stockholm', latitude: 59.3293, longitude: 18.0686 },
  SG: { locale: 'en-SG', timezone: 'Asia/Singapore', latitude: 1.3521, longitude: 103.8198 },
  TH: { locale: 'th-TH', timezone: 'Asia/Bangkok', latitude: 13.7563, longitude: 100.5018 },
  TR: { locale: 'tr-TR', timezone: 'Europe/Istanbul', latitude: 41.0082, longitude: 28.9784 },
  TW: { locale: 'zh-TW', timezone: 'Asia/Taipei', latitude: 25.033, longitude: 121.5654 },
  UA: { locale: 'uk-UA', timezone: 'Europe/Kyiv', latitude: 50.4501, longitude: 30.5234 },
  US: { locale: 'en-US', timezone: 'America/New_York', latitude: 40.7128, longitude: -74.006 },
  VN: { locale: 'vi-VN', timezone: 'Asia/Ho_Chi_Minh', latitude: 21.0278, longitude: 105.8342 },
  ZA: { locale: 'en-ZA', timezone: 'Africa/Johannesburg', latitude: -26.2041, longitude: 28.0473 },
};

/** The profile of a country code in any case, or undefined for one not supported. */
export function countryProfile(code: string): CountryProfile | undefined {
  return COUNTRY_PROFILES[code.toUpperCase()];
}

/** The languages a browser set to `locale` prefers, in order: the locale, then its language (en-US,en). */
export function languageList(locale: string): string {
  const language = locale.split('-')[0]!;
  return language === locale ? locale : `${locale},${language}`;
}

/** The Accept-Language header Chromium sends for a locale: its language list with q-values (en-US,en;q=0.9). */
export function acceptLanguageFor(locale: string): string {
  return languageList(locale)
    .split(',')
    .map((tag, i) => (i === 0 ? tag : `${tag};q=${(1 - i / 10).toFixed(1)}`))
    .join(',');
}
