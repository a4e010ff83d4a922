# spacrawl in a container, for CI systems other than GitHub Actions:
#   docker build -t spacrawl .
#   docker run --rm -v "$PWD/out:/data" spacrawl crawl https://example.com/ --output-dir /data/report
# Debian's own Chromium headless shell (no browser download), a non-root user, the spacrawl CLI as entrypoint.

# Build stage: the TypeScript compiler is a dev dependency.
FROM node:20-bookworm-slim AS build
WORKDIR /opt/spacrawl
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# better-sqlite3 (--state) is native: its install script fetches a prebuilt binary, else
# compiles it (python3, make, g++). spacrawl's package.json has no install scripts of its own,
# and PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD keeps Playwright from fetching a browser: it is Debian's.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY fixtures ./fixtures
COPY assets ./assets
RUN npx tsc -p tsconfig.json && npm prune --omit=dev

FROM node:20-bookworm-slim
# chromium-headless-shell: the browser spacrawl drives (Chromium's headless build, which Playwright
# itself runs headless; it brings chromium-common); fonts so that pages (and screenshots) render text;
# ca-certificates for https; dumb-init reaps Chromium's processes and forwards Ctrl-C/SIGTERM
# (spacrawl finishes the pages in flight and flushes its output on SIGTERM).
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell fonts-liberation fonts-noto-core fonts-noto-color-emoji ca-certificates dumb-init \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    SPACRAWL_BROWSER=/usr/lib/chromium/chromium-headless-shell \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
COPY --from=build /opt/spacrawl/package.json /opt/spacrawl/package.json
COPY --from=build /opt/spacrawl/node_modules /opt/spacrawl/node_modules
COPY --from=build /opt/spacrawl/bin /opt/spacrawl/bin
COPY --from=build /opt/spacrawl/dist /opt/spacrawl/dist
COPY --from=build /opt/spacrawl/assets /opt/spacrawl/assets
RUN ln -s /opt/spacrawl/bin/run.js /usr/local/bin/spacrawl \
 && useradd --create-home --uid 10001 --shell /usr/sbin/nologin spacrawl \
 && mkdir /data && chown spacrawl:spacrawl /data
USER spacrawl
WORKDIR /data
ENTRYPOINT ["/usr/bin/dumb-init", "--", "node", "/opt/spacrawl/bin/run.js"]
CMD ["--help"]
