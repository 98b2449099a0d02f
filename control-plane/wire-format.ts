import type { HandlerContext } from '@connectrpc/connect';

/**
 * Whether the call's answer is serialized as binary protobuf (gRPC, gRPC-Web
 * and Connect with proto) rather than JSON: only then can stored protobuf
 * bytes travel inside it as they are.
 */
export function answersInBinary(ctx: HandlerContext): boolean {
  return !/[/+]json\s*(;|$)/.test(ctx.requestHeader.get('content-type') ?? '');
}
