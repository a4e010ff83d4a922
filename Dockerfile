# spacrawl in a container, for CI systems other than GitHub Actions:
#   docker build -t spacrawl .
#   docker run --rm -v "$PWD/out:/work" spacrawl crawl https://example.com/ --output-dir /work/report
# Debian's own chromium (no browser download), a non-root user, the spacrawl CLI as entrypoint.

# Build stage: the TypeScript compiler is a dev dependency.
FROM node:20-bookworm-slim AS build
WORKDIR /opt/spacrawl
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
COPY package.json package-lock.json ./
# --ignore-scripts: no lifecycle script may download anything; the browser is Debian's.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY fixtures ./fixtures
RUN npx tsc -p tsconfig.json && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
# chromium: the browser spacrawl drives; fonts so that pages (and screenshots) render text;
# ca-certificates for https; dumb-init reaps Chromium's processes and forwards Ctrl-C/SIGTERM
# (spacrawl finishes the pages in flight and flushes its output on SIGTERM).
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-core fonts-noto-color-emoji ca-certificates dumb-init \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    SPACRAWL_BROWSER=/usr/bin/chromium \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
COPY --from=build /opt/spacrawl/package.json /opt/spacrawl/package.json
COPY --from=build /opt/spacrawl/node_modules /opt/spacrawl/node_modules
COPY --from=build /opt/spacrawl/bin /opt/spacrawl/bin
COPY --from=build /opt/spacrawl/dist /opt/spacrawl/dist
RUN ln -s /opt/spacrawl/bin/run.js /usr/local/bin/spacrawl \
 && useradd --create-home --uid 10001 --shell /usr/sbin/nologin spacrawl \
 && mkdir /work && chown spacrawl:spacrawl /work
USER spacrawl
WORKDIR /work
ENTRYPOINT ["/usr/bin/dumb-init", "--", "node", "/opt/spacrawl/bin/run.js"]
CMD ["--help"]
