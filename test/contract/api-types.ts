// Generated from the served OpenAPI document by `npx tsx scripts/openapi.ts types` (openapi-typescript). Do not edit.
/* eslint-disable */
export interface paths {
    "/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Full-text search across stored transcripts
         * @description Words are ANDed; quoted words match as a phrase; search syntax characters are plain text. Ranking: transcripts holding the query as an exact phrase come first, then those holding all its words otherwise. Within each tier the first 100 matches in popularity order are scored with BM25, raised when the title (x1.5) or the channel name (x1.2) holds every query term; ties go to the more viewed video, and matches beyond those 100 follow in popularity order (most viewed first). Each video is searched through its primary transcript (English first, manual before auto-generated). total is exact up to 1,000 matches, estimated above (totalExact false); hasMore is always exact. Snippets are HTML-escaped, with matches wrapped in <mark> tags. mode=semantic searches by meaning and mode=hybrid fuses both (see mode); the filters and the page work alike in every mode, and in those modes total counts the ranked videos (at most those of the 500 nearest moments).
         */
        get: operations["search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transcript/{videoId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Full transcript of one video
         * @description Served from storage when stored (cached: true); otherwise fetched live from YouTube and stored (cached: false). track picks the manual or the auto-generated track of the language; one that is not stored is fetched live as a missing language is. Live-fetch failures are problems too: 404 for videos without a transcript (video_unavailable, transcripts_disabled, unplayable), 403 age_restricted, 502/504 when YouTube fails (with Retry-After where a retry may help), 503 upstream_busy when too many fetches wait. A live fetch is bounded by the request's deadline (REQUEST_DEADLINE_MS): still waiting for a fetch slot then, 503 upstream_busy; still being fetched, 504 deadline_exceeded (the fetch goes on and is stored). Responses carry a weak ETag; send it back in If-None-Match to get 304.
         */
        get: operations["getTranscript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/transcripts/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Transcripts of up to 100 videos
         * @description Needs a plan listed in BULK_PLANS (default: pro). Send Content-Type: application/json. Missing transcripts are fetched a few at a time, behind single requests; when the request's deadline (REQUEST_DEADLINE_MS) passes, the answer is 200 with the transcripts obtained so far and an errors[] entry (deadline_exceeded or upstream_busy) for each id not finished.
         */
        post: operations["bulkTranscripts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every channel, most transcripts first
         * @description Every channel with its title, video count and transcript count, paged with limit and offset as in search. Counts include what was fetched live since the build, as /v1/stats does: the counts of all channels add up to its videos and transcripts. Most transcripts first; ties by channelId (ascending).
         */
        get: operations["listChannels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{channelId}/videos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A channel's indexed videos, newest first
         * @description The videos of one indexed channel, newest first, paged with limit and offset as in search. A video without a stored transcript is listed with hasTranscript false and transcript null.
         */
        get: operations["channelVideos"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Counts describing the database
         * @description Counts computed when the artifact set was built, plus what was fetched live since. No request scans the database.
         */
        get: operations["stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness, health and the artifact set served
         * @description Whether the server is up and healthy, and when the artifact set it serves was built. No API key needed.
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: whether the server should get traffic
         * @description 200 once an artifact set is loaded, its search memory filled (and, at a start on a set verified earlier, its files read into the page cache) and the server is not unhealthy; 503 until then (the server answers meanwhile, more slowly). No API key needed.
         */
        get: operations["ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1 document
         * @description The contract of this API, generated from the schemas that validate requests. No API key needed; rendered at /docs.
         */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where to start: links and the list of endpoints
         * @description Links to the reference (/docs), the OpenAPI document, the API and the MCP endpoint, and every operation with whether it needs a key. No API key needed.
         */
        get: operations["serviceIndex"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The same index, at the API's base path
         * @description Links to the reference (/docs), the OpenAPI document, the API and the MCP endpoint, and every operation with whether it needs a key. No API key needed.
         */
        get: operations["apiIndex"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Problem: {
            /** @description urn:transcript-service:problem:<code> */
            type: string;
            /** @description HTTP status text. */
            title: string;
            status: number;
            detail: string;
            /** @description Stable machine-readable error code. */
            code: string;
            /** @description Also sent as X-Request-Id; quote it when reporting a problem. */
            requestId: string;
            /** @description One entry per invalid parameter (400 invalid_parameter and similar). */
            errors?: {
                param: string;
                message: string;
            }[];
            /** @description Language codes the video has (404 language_not_available). */
            availableLanguages?: string[];
            /** @description Plans that may call the endpoint (403 plan_required). */
            requiredPlans?: string[];
        };
        Pagination: {
            /** @description Page size applied (after clamping). */
            limit: number;
            /** @description Offset applied. */
            offset: number;
            /** @description Total matching items. */
            total: number;
            /** @description Whether items exist beyond this page. */
            hasMore: boolean;
        };
        ChannelVideo: {
            videoId: string;
            title: string;
            viewCount: number;
            /** @description ISO 8601 UTC. */
            publishedAt: string;
            hasTranscript: boolean;
            /** @description null when hasTranscript is false. */
            transcript: {
                languageCode: string;
                wordCount: number;
                isGenerated: boolean;
            } | null;
        };
        ChannelVideosResponse: {
            channelId: string;
            channelTitle: string;
            /** @description Newest first. */
            videos: components["schemas"]["ChannelVideo"][];
            pagination: components["schemas"]["Pagination"];
        };
        Channel: {
            channelId: string;
            title: string;
            /** @description Stored videos: pagination.total of the channel's video list. */
            videoCount: number;
            /** @description Videos with a stored transcript, as /v1/stats counts them. */
            transcriptCount: number;
        };
        ChannelsResponse: {
            /** @description Most transcripts first; ties by channelId (ascending). */
            channels: components["schemas"]["Channel"][];
            pagination: components["schemas"]["Pagination"];
        };
        Moment: {
            /**
             * @description Start of a segment holding a match, in seconds.
             * @example 132.48
             */
            startSeconds: number;
            /** @description The segment's text, HTML-escaped like the snippet, matches in <mark>…</mark>. */
            text: string;
        };
        SearchHit: {
            videoId: string;
            title: string;
            channelId: string;
            channelTitle: string;
            viewCount: number;
            /** @description HTML-escaped excerpt; matches wrapped in <mark>…</mark>, cut ends marked with … */
            snippet: string;
            wordCount: number;
            /**
             * @description Start, in seconds, of the transcript segment where the snippet's first match begins (its first whole-query phrase where it shows one).
             * @example 132.48
             */
            startSeconds: number;
            /** @description The video on YouTube at that moment: https://www.youtube.com/watch?v=ID&t=Ns, N = floor(startSeconds). */
            url: string;
            /** @description Up to 3 other segments holding matches (whole-query phrase first, then most query words), in time order. */
            moments: components["schemas"]["Moment"][];
        };
        SearchPagination: {
            /** @description Page size applied (after clamping). */
            limit: number;
            /** @description Offset applied. */
            offset: number;
            /** @description Total matching items. */
            total: number;
            /** @description Whether items exist beyond this page. */
            hasMore: boolean;
            /** @description false when total is an estimate (very common queries). */
            totalExact: boolean;
        };
        /** @description Present only when mode=semantic or hybrid could not be searched as asked because the query embedder failed: the results and pagination are keyword search's for the same query, filters and page. The mode asked for may answer again later. */
        SearchFallback: {
            /**
             * @description The mode the results are of.
             * @constant
             */
            mode: "keyword";
            /**
             * @description Why: the query embedder timed out, answered an error, or gave vectors of the wrong length.
             * @constant
             */
            code: "embedder_unavailable";
            /** @description What the embedder did, for people. */
            detail: string;
        };
        SearchResponse: {
            /** @description The query as applied (trimmed). */
            query: string;
            results: components["schemas"]["SearchHit"][];
            pagination: components["schemas"]["SearchPagination"];
            fallback?: components["schemas"]["SearchFallback"];
        };
        Stats: {
            videos: number;
            transcripts: number;
            totalWords: number;
            avgWordsPerTranscript: number;
            channels: number;
            /** @description Transcripts of the artifact set with vectors, searchable with mode=semantic and hybrid (transcripts fetched live get theirs with the next build). */
            transcriptsWithVectors: number;
        };
        BulkItem: {
            videoId: string;
            title: string;
            channelId: string;
            channelTitle: string;
            /** @description false when fetched from the source during this request. */
            cached: boolean;
            transcript: {
                script: string;
                wordCount: number;
                language: string;
                languageCode: string;
                isGenerated: boolean;
                duration: number;
            };
        };
        BulkError: {
            videoId: string;
            /** @description video_not_found, transcript_not_found, language_not_available, track_not_available, not_fetched (fetchMissing false), or the source's error code. At the request's deadline: deadline_exceeded for ids being fetched then (the fetch goes on and is stored), upstream_busy for ids still waiting for a fetch slot. */
            code: string;
            detail: string;
            /** @description With language_not_available (the codes the video has) and transcripts_disabled (empty), as in the single request's problem. */
            availableLanguages?: string[];
        };
        BulkResponse: {
            /** @description Distinct video ids requested. */
            requested: number;
            /** @description Transcripts returned. */
            found: number;
            /** @description Transcripts obtained from the source during this request. */
            fetched: number;
            /** @description In request order. */
            transcripts: components["schemas"]["BulkItem"][];
            /** @description Ids that could not be obtained, in request order. */
            errors: components["schemas"]["BulkError"][];
            timing: {
                totalMs: number;
            };
        };
        Transcript: {
            script: string;
            subs: {
                text: string;
                /**
                 * @description Decimal seconds from the start.
                 * @example 1.54
                 */
                offset: string;
                /**
                 * @description Decimal seconds.
                 * @example 4.16
                 */
                duration: string;
            }[];
            /** @description Language name in words. */
            language: string;
            languageCode: string;
            wordCount: number;
            /** @description Seconds. */
            duration: number;
            isGenerated: boolean;
        };
        Video: {
            videoId: string;
            title: string;
            channelTitle: string;
            channelId: string;
            viewCount: number;
            /** @description ISO 8601 UTC. */
            publishedAt: string;
            thumbnail: string;
            transcript: components["schemas"]["Transcript"];
            /** @description Whether the transcript was stored before this request. */
            cached: boolean;
            debug: {
                /** @description storage, or the live retrieval method. */
                method: string;
                usedProxy: boolean;
            };
            timing: {
                totalMs: number;
            };
            /** @description includeMetadata=true only. */
            lengthSeconds?: number;
            /** @description includeMetadata=true only. */
            description?: string | null;
            /** @description includeMetadata=true only. */
            keywords?: string[];
            /** @description includeMetadata=true only. */
            category?: string | null;
            /** @description includeMetadata=true only; empty when the video has none. */
            chapters?: {
                title: string;
                startSeconds: number;
                /** @description Start of the next chapter, or the video length for the last one. */
                endSeconds: number;
            }[];
            /** @description With q only: indexes into transcript.subs of the segments where a match of q begins, ascending. */
            matches?: number[];
        };
        Health: {
            /**
             * @description `ok`; `degraded`: answering from an earlier artifact set because the published one failed verification or broke while served, or a shared service (`unreachable`) is down and a local fallback serves instead; `unhealthy` (answered with 503): the served set's database is damaged and no earlier verified set could replace it.
             * @enum {string}
             */
            status: "ok" | "degraded" | "unhealthy";
            /** @description Why the status is not `ok`. */
            reason?: string;
            /** @description Shared services this replica cannot reach now (present only when some are): `redis`: rate limits counted per process, fetch claims and the negative cache in memory; `postgresql`: live fetches stored here and queued for the shared store, keys from the copy in memory. */
            unreachable?: ("redis" | "postgresql")[];
            /** @description When the served artifact set was built (ISO 8601). */
            builtAt: string | null;
            /** @description Artifact schema version. */
            schemaVersion: number | null;
        };
        Readiness: {
            ready: boolean;
            /** @enum {string} */
            status: "ok" | "degraded" | "unhealthy";
            /** @description Why the server is not ready, or why its status is not `ok`. */
            reason?: string;
            /** @description Shared services this replica cannot reach now (present only when some are): `redis`: rate limits counted per process, fetch claims and the negative cache in memory; `postgresql`: live fetches stored here and queued for the shared store, keys from the copy in memory. */
            unreachable?: ("redis" | "postgresql")[];
        };
        ServiceIndex: {
            name: string;
            /** @description The API's version. */
            version: string;
            /** @description The API reference, rendered for reading (HTML). */
            docs: string;
            /** @description The OpenAPI 3.1 document. */
            openapi: string;
            /** @description The base path of the API; answers this index too. */
            api: string;
            /** @description The Model Context Protocol endpoint for LLM agents (POST, Streamable HTTP). */
            mcp: string;
            /** @description How to send the API key. */
            auth: string;
            /** @description Every operation of the OpenAPI document, then the MCP endpoint. */
            endpoints: {
                /** @enum {string} */
                method: "GET" | "POST";
                /** @description The path, with parameters in braces as the OpenAPI document writes them. */
                path: string;
                summary: string;
                /** @description Whether the endpoint needs an API key. */
                key: boolean;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Requests allowed per key per clock minute. */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the current window. */
        "X-RateLimit-Remaining": number;
        /** @description Unix time (seconds) when the current window ends. */
        "X-RateLimit-Reset": number;
        /** @description The quota policy, as a structured field of the IETF httpapi RateLimit header fields draft: `"default";q=100;w=60` (q requests per w seconds, per key). */
        "RateLimit-Policy": string;
        /** @description What is left of the quota, as a structured field of the IETF httpapi RateLimit header fields draft: `"default";r=42;t=18` (r requests remaining, t seconds until the window ends). */
        RateLimit: string;
        /** @description Seconds to wait before trying again. */
        "Retry-After": number;
        /** @description With a text format (text, srt, vtt): `attachment; filename="<videoId>.<lang>.<ext>"`. */
        "Content-Disposition": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    search: {
        parameters: {
            query: {
                /** @description Search query, 1..500 characters after trimming, with at least one letter or digit. */
                q: string;
                /** @description keyword (default): the words, as always. semantic: by meaning, the videos of the transcript moments (chunks of about 30-60 s) nearest the query's embedding; a hit's startSeconds, url and snippet are its nearest moment's. hybrid: the keyword list (its first 100) and the semantic list fused by reciprocal rank. semantic and hybrid need a set built with vectors and a matching query embedder (409 otherwise); they cover the artifact set, not transcripts fetched live since. */
                mode?: "keyword" | "semantic" | "hybrid";
                /** @description Page size, default 20. Values above 100 are clamped to 100; pagination.limit reports the size applied. */
                limit?: number;
                /** @description Items to skip, default 0, at most 10000 (deep-pagination cap: narrow the query instead). */
                offset?: number;
                /** @description Channel id: UC followed by 22 characters. */
                channel?: string;
                /** @description Only videos with at least this many views. */
                minViews?: number;
                /** @description Only videos published at or after this: a date (YYYY-MM-DD, from the start of that day, UTC) or an RFC 3339 date-time (2024-05-01T12:00:00Z, 2024-05-01T14:00:00+02:00). Inclusive. Videos whose date is unknown are left out. */
                publishedAfter?: string;
                /** @description Only videos published at or before this: a date (YYYY-MM-DD, to the end of that day, UTC) or an RFC 3339 date-time. Inclusive. Videos whose date is unknown are left out. */
                publishedBefore?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of matching transcripts. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResponse"];
                };
            };
            /**
             * @description `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name.
             *
             *     `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys; send the key once.
             */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter" | "conflicting_api_keys";
                    };
                };
            };
            /**
             * @description `missing_api_key`: Send your API key in the X-API-Key header or as Authorization: Bearer.
             *
             *     `invalid_api_key`: The API key is not valid.
             */
            401: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description The challenge, naming both ways of sending the key: `ApiKey header="X-API-Key", Bearer`. */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 401;
                        /** @enum {string} */
                        code?: "missing_api_key" | "invalid_api_key";
                    };
                };
            };
            /** @description `subscription_expired`: The subscription of this API key has expired. */
            403: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 403;
                        /** @enum {string} */
                        code?: "subscription_expired";
                    };
                };
            };
            /**
             * @description `no_vectors`: mode=semantic or hybrid, but the served set was built without vectors; mode=keyword works.
             *
             *     `embedder_mismatch`: mode=semantic or hybrid, but this server cannot embed queries like the set's vectors (another model, or none configured); the detail names both; mode=keyword works.
             */
            409: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 409;
                        /** @enum {string} */
                        code?: "no_vectors" | "embedder_mismatch";
                    };
                };
            };
            /** @description `rate_limited`: Over the key's requests per minute; Retry-After says when the window ends. */
            429: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 429;
                        /** @enum {string} */
                        code?: "rate_limited";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
    getTranscript: {
        parameters: {
            query?: {
                /** @description Transcript language code (exact match: en does not match en-GB). Default en. */
                lang?: string;
                /** @description Which track of the language: any (default; the manual one when there is one, else the auto-generated one), manual, or generated (auto-generated). A kind the video lacks in the language is 404 track_not_available. */
                track?: "any" | "manual" | "generated";
                /** @description true adds lengthSeconds, description, keywords, category and chapters. */
                includeMetadata?: "true" | "false";
                /** @description json (default), text (one segment a line), srt (SubRip) or vtt (WebVTT). Without it, the Accept header picks: application/json, text/plain, application/x-subrip, text/vtt. */
                format?: "json" | "text" | "srt" | "vtt";
                /** @description Search words, as for /v1/search: the response's matches lists the indexes of the segments (in transcript.subs) where a match begins. JSON only. */
                q?: string;
            };
            header?: never;
            path: {
                /** @description Video id: 11 characters of A-Z, a-z, 0-9, _ or -. */
                videoId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The video and its transcript; or, by format or Accept, the transcript as plain text, SubRip or WebVTT (with Content-Disposition). */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Weak entity tag of the representation; send it back in If-None-Match to get 304 when it has not changed. */
                    ETag: string;
                    "Content-Disposition": components["headers"]["Content-Disposition"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Video"];
                    "text/plain": string;
                    "text/vtt": string;
                    "application/x-subrip": string;
                };
            };
            /** @description Not modified: If-None-Match matched the ETag. No body. */
            304: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Weak entity tag of the representation; send it back in If-None-Match to get 304 when it has not changed. */
                    ETag: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description `invalid_video_id`: The video id is not 11 characters of A-Z, a-z, 0-9, _ or -. Live fetch: The video id is not 11 characters of A-Z, a-z, 0-9, _ or -.
             *
             *     `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name.
             *
             *     `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys; send the key once.
             */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_video_id" | "invalid_parameter" | "conflicting_api_keys";
                    };
                };
            };
            /**
             * @description `missing_api_key`: Send your API key in the X-API-Key header or as Authorization: Bearer.
             *
             *     `invalid_api_key`: The API key is not valid.
             */
            401: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description The challenge, naming both ways of sending the key: `ApiKey header="X-API-Key", Bearer`. */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 401;
                        /** @enum {string} */
                        code?: "missing_api_key" | "invalid_api_key";
                    };
                };
            };
            /**
             * @description `subscription_expired`: The subscription of this API key has expired.
             *
             *     `age_restricted`: Live fetch: The video is age restricted; YouTube serves its transcript to signed-in users only.
             */
            403: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 403;
                        /** @enum {string} */
                        code?: "subscription_expired" | "age_restricted";
                    };
                };
            };
            /**
             * @description `video_not_found`: The video is not stored and cannot be fetched (live fetching is off).
             *
             *     `transcript_not_found`: The video is stored but has no transcript.
             *
             *     `language_not_available`: The video has no transcript in the requested language; availableLanguages lists those it has. Live fetch: The video has no transcript in the requested language; availableLanguages lists those it has.
             *
             *     `track_not_available`: The video has a transcript in the requested language, but not of the requested track (manual or auto-generated). Live fetch: The video has a transcript in the requested language, but not of the requested track (manual or auto-generated); track=any answers the one it has.
             *
             *     `video_unavailable`: Live fetch: YouTube reports the video as unavailable (removed, private, or never existed).
             *
             *     `transcripts_disabled`: Live fetch: The video has no transcripts: captions are disabled for it.
             *
             *     `unplayable`: Live fetch: YouTube refuses to play the video, so it has no transcript to fetch.
             */
            404: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 404;
                        /** @enum {string} */
                        code?: "video_not_found" | "transcript_not_found" | "language_not_available" | "track_not_available" | "video_unavailable" | "transcripts_disabled" | "unplayable";
                    };
                };
            };
            /** @description `not_acceptable`: Without format, Accept allows none of application/json, text/plain, text/vtt, application/x-subrip. */
            406: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 406;
                        /** @enum {string} */
                        code?: "not_acceptable";
                    };
                };
            };
            /** @description `rate_limited`: Over the key's requests per minute; Retry-After says when the window ends. */
            429: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 429;
                        /** @enum {string} */
                        code?: "rate_limited";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
            /**
             * @description `request_blocked`: Live fetch: YouTube asked for a bot check on every attempt; try again later. (with Retry-After)
             *
             *     `ip_blocked`: Live fetch: YouTube blocked the addresses this service fetches from; try again later. (with Retry-After)
             *
             *     `upstream_rate_limited`: Live fetch: YouTube rate-limited the fetch on every attempt; try again later. (with Retry-After)
             *
             *     `po_token_required`: Live fetch: YouTube requires a proof-of-origin token for this transcript; it cannot be fetched now.
             *
             *     `consent_failed`: Live fetch: YouTube's consent page could not be passed.
             *
             *     `upstream_unparsable`: Live fetch: YouTube's answer could not be understood.
             *
             *     `upstream_status`: Live fetch: YouTube answered with a server error. (with Retry-After)
             *
             *     `upstream_too_large`: Live fetch: YouTube's answer was larger than accepted.
             *
             *     `empty_transcript`: Live fetch: YouTube returned an empty transcript. (with Retry-After)
             *
             *     `connection_failed`: Live fetch: The connection to YouTube failed. (with Retry-After)
             */
            502: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 502;
                        /** @enum {string} */
                        code?: "request_blocked" | "ip_blocked" | "upstream_rate_limited" | "po_token_required" | "consent_failed" | "upstream_unparsable" | "upstream_status" | "upstream_too_large" | "empty_transcript" | "connection_failed";
                    };
                };
            };
            /**
             * @description `upstream_busy`: Live fetch: Too many transcripts are being fetched from YouTube right now; try again shortly. Or: No upstream fetch slot came free before the request's deadline; nothing was fetched. Try again shortly.
             *
             *     `shutting_down`: Live fetch: The server is shutting down; try again shortly.
             */
            503: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 503;
                        /** @enum {string} */
                        code?: "upstream_busy" | "shutting_down";
                    };
                };
            };
            /**
             * @description `upstream_timeout`: Live fetch: YouTube did not answer in time.
             *
             *     `deadline_exceeded`: Live fetch: The transcript was still being fetched from YouTube when the request's deadline passed; the fetch goes on and is stored, so a retry shortly may find it.
             */
            504: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 504;
                        /** @enum {string} */
                        code?: "upstream_timeout" | "deadline_exceeded";
                    };
                };
            };
        };
    };
    bulkTranscripts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1..100 video ids; duplicates are collapsed (first occurrence kept). */
                    videoIds: string[];
                    /**
                     * @description Fetch videos that are not stored from the source. Default true.
                     * @default true
                     */
                    fetchMissing?: boolean;
                    /**
                     * @description Transcript language code (exact match: en does not match en-GB). Default en.
                     * @default en
                     * @example en
                     */
                    lang?: string;
                    /**
                     * @description Which track of the language: any (default; the manual one when there is one, else the auto-generated one), manual, or generated (auto-generated). A kind the video lacks in the language is 404 track_not_available.
                     * @default any
                     * @enum {string}
                     */
                    track?: "any" | "manual" | "generated";
                };
            };
        };
        responses: {
            /** @description Transcripts found, and an error entry for every id that could not be obtained. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkResponse"];
                };
            };
            /**
             * @description `invalid_parameter`: The body does not match the schema: a field is missing, malformed or unknown (each is listed). A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name.
             *
             *     `too_many_video_ids`: More than 100 video ids.
             *
             *     `invalid_json`: The body is empty, not valid JSON, or nests deeper than 64 levels.
             *
             *     `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys; send the key once.
             */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter" | "too_many_video_ids" | "invalid_json" | "conflicting_api_keys";
                    };
                };
            };
            /**
             * @description `missing_api_key`: Send your API key in the X-API-Key header or as Authorization: Bearer.
             *
             *     `invalid_api_key`: The API key is not valid.
             */
            401: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description The challenge, naming both ways of sending the key: `ApiKey header="X-API-Key", Bearer`. */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 401;
                        /** @enum {string} */
                        code?: "missing_api_key" | "invalid_api_key";
                    };
                };
            };
            /**
             * @description `subscription_expired`: The subscription of this API key has expired.
             *
             *     `plan_required`: The key's plan may not use this endpoint; requiredPlans lists those that may.
             */
            403: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 403;
                        /** @enum {string} */
                        code?: "subscription_expired" | "plan_required";
                    };
                };
            };
            /** @description `payload_too_large`: The body exceeds MAX_BODY_BYTES (the connection is closed). */
            413: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 413;
                        /** @enum {string} */
                        code?: "payload_too_large";
                    };
                };
            };
            /** @description `unsupported_media_type`: Content-Type is not application/json (UTF-8). */
            415: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 415;
                        /** @enum {string} */
                        code?: "unsupported_media_type";
                    };
                };
            };
            /** @description `rate_limited`: Over the key's requests per minute; Retry-After says when the window ends. */
            429: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 429;
                        /** @enum {string} */
                        code?: "rate_limited";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
    listChannels: {
        parameters: {
            query?: {
                /** @description Page size, default 20. Values above 100 are clamped to 100; pagination.limit reports the size applied. */
                limit?: number;
                /** @description Items to skip, default 0, at most 10000 (deep-pagination cap: narrow the query instead). */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of channels. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelsResponse"];
                };
            };
            /**
             * @description `invalid_parameter`: limit or offset is malformed, or a query parameter is unknown or given twice. A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name.
             *
             *     `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys; send the key once.
             */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter" | "conflicting_api_keys";
                    };
                };
            };
            /**
             * @description `missing_api_key`: Send your API key in the X-API-Key header or as Authorization: Bearer.
             *
             *     `invalid_api_key`: The API key is not valid.
             */
            401: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description The challenge, naming both ways of sending the key: `ApiKey header="X-API-Key", Bearer`. */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 401;
                        /** @enum {string} */
                        code?: "missing_api_key" | "invalid_api_key";
                    };
                };
            };
            /** @description `subscription_expired`: The subscription of this API key has expired. */
            403: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 403;
                        /** @enum {string} */
                        code?: "subscription_expired";
                    };
                };
            };
            /** @description `rate_limited`: Over the key's requests per minute; Retry-After says when the window ends. */
            429: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 429;
                        /** @enum {string} */
                        code?: "rate_limited";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
    channelVideos: {
        parameters: {
            query?: {
                /** @description Page size, default 20. Values above 100 are clamped to 100; pagination.limit reports the size applied. */
                limit?: number;
                /** @description Items to skip, default 0, at most 10000 (deep-pagination cap: narrow the query instead). */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description Channel id: UC followed by 22 characters. */
                channelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the channel's videos. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelVideosResponse"];
                };
            };
            /**
             * @description `invalid_parameter`: channelId, limit or offset is malformed, or a query parameter is unknown or given twice. A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name.
             *
             *     `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys; send the key once.
             */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter" | "conflicting_api_keys";
                    };
                };
            };
            /**
             * @description `missing_api_key`: Send your API key in the X-API-Key header or as Authorization: Bearer.
             *
             *     `invalid_api_key`: The API key is not valid.
             */
            401: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description The challenge, naming both ways of sending the key: `ApiKey header="X-API-Key", Bearer`. */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 401;
                        /** @enum {string} */
                        code?: "missing_api_key" | "invalid_api_key";
                    };
                };
            };
            /** @description `subscription_expired`: The subscription of this API key has expired. */
            403: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 403;
                        /** @enum {string} */
                        code?: "subscription_expired";
                    };
                };
            };
            /** @description `channel_not_found`: No channel with this id is indexed. */
            404: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 404;
                        /** @enum {string} */
                        code?: "channel_not_found";
                    };
                };
            };
            /** @description `rate_limited`: Over the key's requests per minute; Retry-After says when the window ends. */
            429: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 429;
                        /** @enum {string} */
                        code?: "rate_limited";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
    stats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Database statistics. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Stats"];
                };
            };
            /**
             * @description `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name.
             *
             *     `conflicting_api_keys`: X-API-Key and Authorization: Bearer carry different keys; send the key once.
             */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter" | "conflicting_api_keys";
                    };
                };
            };
            /**
             * @description `missing_api_key`: Send your API key in the X-API-Key header or as Authorization: Bearer.
             *
             *     `invalid_api_key`: The API key is not valid.
             */
            401: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description The challenge, naming both ways of sending the key: `ApiKey header="X-API-Key", Bearer`. */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 401;
                        /** @enum {string} */
                        code?: "missing_api_key" | "invalid_api_key";
                    };
                };
            };
            /** @description `subscription_expired`: The subscription of this API key has expired. */
            403: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 403;
                        /** @enum {string} */
                        code?: "subscription_expired";
                    };
                };
            };
            /** @description `rate_limited`: Over the key's requests per minute; Retry-After says when the window ends. */
            429: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    /** @description Requests allowed per key per clock minute. */
                    "X-RateLimit-Limit": number;
                    /** @description Requests left in the current window. */
                    "X-RateLimit-Remaining": number;
                    /** @description Unix time (seconds) when the current window ends. */
                    "X-RateLimit-Reset": number;
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again. */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 429;
                        /** @enum {string} */
                        code?: "rate_limited";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server is up (`ok` or `degraded`). */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name. */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
            /** @description The server is unhealthy: the served artifact set's database is damaged (the body's reason field says why). */
            503: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready: an artifact set is loaded, its search memory filled (its files read into the page cache where that was due), and the server is not unhealthy. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name. */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
            /** @description Not ready: the first artifact set's search memory is still being filled (or its files read into the page cache), or the server is unhealthy (the body's reason field says why). */
            503: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name. */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
    serviceIndex: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The index. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIndex"];
                };
            };
            /** @description `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name. */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
    apiIndex: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The index. */
            200: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceIndex"];
                };
            };
            /** @description `invalid_parameter`: A parameter is missing or malformed, given twice, or unknown ("is not a parameter of this endpoint"); errors lists each by name. */
            400: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 400;
                        /** @enum {string} */
                        code?: "invalid_parameter";
                    };
                };
            };
            /** @description `internal_error`: Unexpected error (a bug, logged); quote the requestId. */
            500: {
                headers: {
                    /** @description The request id: the client's own X-Request-Id when it is 1-64 characters of A-Z, a-z, 0-9, _ or -, else a new one. Also in problem bodies. */
                    "X-Request-Id": string;
                    /** @description `no-store`, except a transcript (`private, max-age=300`). */
                    "Cache-Control": string;
                    /** @description `Accept-Encoding` (bodies of 1 KiB or more are sent with brotli or gzip when the client accepts it); `Accept` where the format is negotiated; `Origin` with a CORS allowlist. */
                    Vary: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"] & {
                        /** @constant */
                        status?: 500;
                        /** @enum {string} */
                        code?: "internal_error";
                    };
                };
            };
        };
    };
}
