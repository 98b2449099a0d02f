export interface Point {
  x: number;
  y: number;
}

/**
 * The positions a person's pointer passes through on one move from `from` to
 * `to`, one per frame: a curve (a cubic Bézier whose control points lie off
 * the straight line, to one side, as a wrist swings), travelled slowly at
 * both ends and fastest in the middle (smoothstep easing), in whole pixels,
 * ending at `to`. Behaviour checks look for trusted pointer events along such a path;
 * a straight line at constant speed, or a jump, is what scripts produce.
 *
 * `random` is a source of numbers in [0, 1) (Math.random in use, seeded in tests).
 */
export function pointerPath(from: Point, to: Point, frames: number, random: () => number = Math.random): Point[] {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  // The unit normal of the straight line, and how far off it the curve bows (10-30 % of the move).
  const nx = -dy / length;
  const ny = dx / length;
  const side = random() < 0.5 ? -1 : 1;
  const bow1 = side * length * (0.1 + random() * 0.2);
  const bow2 = side * length * (0.05 + random() * 0.15);
  const c1 = { x: from.x + dx * 0.3 + nx * bow1, y: from.y + dy * 0.3 + ny * bow1 };
  const c2 = { x: from.x + dx * 0.7 + nx * bow2, y: from.y + dy * 0.7 + ny * bow2 };
  const points: Point[] = [];
  for (let i = 1; i <= frames; i++) {
    const linear = i / frames;
    const t = linear * linear * (3 - 2 * linear);
    const u = 1 - t;
    // Whole pixels, as a mouse reports them.
    points.push({
      x: Math.round(u * u * u * from.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * to.x),
      y: Math.round(u * u * u * from.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * to.y),
    });
  }
  return points;
}
