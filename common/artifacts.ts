import { randomBytes } from 'node:crypto';

/**
 * Files a browser scrape makes for the caller (SPEC 2.3 screenshot_url,
 * pdf_url): kept 24 hours (SPEC 8.4) under a name of 32 random URL-safe
 * characters (192 bits), served by the gateway at /api/v1/artifacts/{name}.
 */
export const ARTIFACT_TYPES = { png: 'image/png', pdf: 'application/pdf' } as const;
export type ArtifactExtension = keyof typeof ARTIFACT_TYPES;

export const ARTIFACT_TTL_SECONDS = 24 * 3600;
export const ARTIFACT_NAME = /^[A-Za-z0-9_-]{32}\.(png|pdf)$/;

export function newArtifactName(extension: ArtifactExtension): string {
  return `${randomBytes(24).toString('base64url')}.${extension}`;
}

export function artifactUrl(publicBaseUrl: string, name: string): string {
  return `${publicBaseUrl.replace(/\/$/, '')}/api/v1/artifacts/${name}`;
}

/** The media type of a valid artifact name, or null for anything else. */
export function artifactContentType(name: string): string | null {
  const match = ARTIFACT_NAME.exec(name);
  return match ? ARTIFACT_TYPES[match[1] as ArtifactExtension] : null;
}
