import { create } from '@bufbuild/protobuf';
import type { DescMethod } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Redis } from 'ioredis';
import { artifactContentType } from '../../common/artifacts.js';
import { TrawlError } from '../../common/errors.js';
import type { RedisKeys } from '../../common/redis-keys.js';
import { ArtifactService, GetArtifactResponseSchema } from '../../proto/gen/trawl/v1/artifacts_pb.js';
import type { CallAuth } from '../accounts/caller.js';

/** The name is the credential (192 random bits), as for any unguessable download link. */
export const ARTIFACT_METHOD_AUTH: ReadonlyArray<[DescMethod, CallAuth]> = [[ArtifactService.method.get, 'none']];

export function createArtifactService(deps: { redis: Redis; keys: RedisKeys }): ServiceImpl<typeof ArtifactService> {
  return {
    async get(req) {
      const contentType = artifactContentType(req.name);
      // A malformed name and an expired one answer alike: nothing is said about what exists.
      const data = contentType ? await deps.redis.getBuffer(deps.keys.artifact(req.name)) : null;
      if (!contentType || !data) throw new TrawlError('NOT_FOUND', 'No such file, or its 24 hours have passed');
      return create(GetArtifactResponseSchema, { data, contentType });
    },
  };
}
