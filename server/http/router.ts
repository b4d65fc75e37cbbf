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
  segments: string[];
}

export interface Router<R extends Routable = Routable> {
  match(method: string, path: string): RouteMatch<R>;
}

export function createRouter<R extends Routable>(routes: readonly R[]): Router<R> {
  const compiled: CompiledRoute<R>[] = routes.map((route) => ({ route, segments: route.path.split("/").slice(1) }));

  const matchPath = (segments: string[], path: string[]): Record<string, string> | undefined => {
    if (segments.length !== path.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const pattern = segments[i] as string;
      const actual = path[i] as string;
      if (pattern.startsWith(":")) {
        if (actual === "") return undefined;
        params[pattern.slice(1)] = safeDecode(actual);
      } else if (pattern !== actual) {
        return undefined;
      }
    }
    return params;
  };

  return {
    match(method, path) {
      const parts = path.split("/").slice(1);
      const wanted = method === "HEAD" ? "GET" : method;
      const allow = new Set<string>();
      let template = "";
      for (const { route, segments } of compiled) {
        const params = matchPath(segments, parts);
        if (params === undefined) continue;
        if (route.method === wanted) return { kind: "found", route, params };
        allow.add(route.method);
        template ||= route.path;
        if (route.method === "GET") allow.add("HEAD");
      }
      if (allow.size > 0) return { kind: "wrong-method", allow: [...allow].sort(), template };
      return { kind: "none" };
    },
  };
}

/** A malformed escape is left as is; the parameter's validation rejects it. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
