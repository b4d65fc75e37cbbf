/**
 * Matches method + path against the route table. A path that exists under
 * another method yields the allowed methods (for 405 + Allow); HEAD is served
 * by the GET route.
 */
/** What the router needs of a route: its method and `/v1/transcript/:videoId` style path. */
export interface Routable {
  method: string;
  path: string;
}

export type RouteMatch<R extends Routable> =
  | { kind: "found"; route: R; params: Record<string, string> }
  | { kind: "wrong-method"; allow: string[]; /** The path template matched, e.g. `/v1/transcript/:videoId`. */ template: string }
  | { kind: "none" };

interface CompiledRoute<R extends Routable> {
  route: R;
  /** Per path segment: the literal it must equal, or (`param`) the name it binds. */
  segments: { literal: string; param: string | undefined }[];
}

export interface Router<R extends Routable = Routable> {
  match(method: string, path: string): RouteMatch<R>;
}

export function createRouter<R extends Routable>(routes: readonly R[]): Router<R> {
  // By segment count, in the order given: a path can only match routes of its own length.
  const byLength = new Map<number, CompiledRoute<R>[]>();
  for (const route of routes) {
    const segments = route.path
      .split("/")
      .slice(1)
      .map((segment) => (segment.startsWith(":") ? { literal: segment, param: segment.slice(1) } : { literal: segment, param: undefined }));
    const list = byLength.get(segments.length) ?? [];
    list.push({ route, segments });
    byLength.set(segments.length, list);
  }

  const matchPath = (segments: CompiledRoute<R>["segments"], path: string[]): Record<string, string> | undefined => {
    let params: Record<string, string> | undefined;
    for (let i = 0; i < segments.length; i++) {
      const { literal, param } = segments[i]!;
      const actual = path[i]!;
      if (param !== undefined) {
        if (actual === "") return undefined;
        (params ??= {})[param] = actual.includes("%") ? safeDecode(actual) : actual;
      } else if (literal !== actual) {
        return undefined;
      }
    }
    return params ?? {};
  };

  return {
    match(method, path) {
      const parts = path.split("/").slice(1);
      const wanted = method === "HEAD" ? "GET" : method;
      let allow: Set<string> | undefined;
      let template = "";
      for (const { route, segments } of byLength.get(parts.length) ?? []) {
        const params = matchPath(segments, parts);
        if (params === undefined) continue;
        if (route.method === wanted) return { kind: "found", route, params };
        allow ??= new Set<string>();
        allow.add(route.method);
        template ||= route.path;
        if (route.method === "GET") allow.add("HEAD");
      }
      if (allow !== undefined) return { kind: "wrong-method", allow: [...allow].sort(), template };
      return { kind: "none" };
    },
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
